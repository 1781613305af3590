package apiserver

import (
	"context"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// priorityClassGetter is what the Priority admission plugin reads the
// PriorityClasses from: the cache fed by the watch cache, and storage
// for a class the cache has not seen (yet), so that a pod created just
// after its class finds it.
type priorityClassGetter struct {
	reg   *registry.Registry
	cache *registry.PriorityClassCache
}

var _ admission.PriorityClassLister = priorityClassGetter{}

// GetPriorityClass returns the named class, or a NotFound error.
func (g priorityClassGetter) GetPriorityClass(ctx context.Context, name string) (*schedulingv1.PriorityClass, error) {
	c, err := g.cache.Get(name)
	if !apierrors.IsNotFound(err) {
		return c, err
	}
	obj, err := g.reg.Store(registry.PriorityClasses).Get(ctx, "", name, nil)
	if err != nil {
		return nil, err
	}
	return obj.(*schedulingv1.PriorityClass), nil
}

// ListPriorityClasses returns every class the cache holds.
func (g priorityClassGetter) ListPriorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error) {
	return g.cache.List(ctx)
}
