package registry

import (
	"context"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// PriorityClassCache knows every PriorityClass, fed by a watch served by
// the watch cache, for the Priority admission of each pod create (as
// upstream's plugin reads its informer's lister). Safe for concurrent
// use.
type PriorityClassCache struct {
	cache *objectCache
}

// NewPriorityClassCache returns an empty cache over the priority classes
// store; Run fills it.
func NewPriorityClassCache(classes *Store) *PriorityClassCache {
	return &PriorityClassCache{cache: newObjectCache(classes)}
}

// Run keeps the cache current until ctx is done, rewatching after errors.
func (c *PriorityClassCache) Run(ctx context.Context) { c.cache.run(ctx) }

// Get returns the class as the cache last saw it, or a NotFound error
// when the cache does not know it (it may not have seen it yet: the
// caller may read storage then). The class is shared and must not be
// modified.
func (c *PriorityClassCache) Get(name string) (*schedulingv1.PriorityClass, error) {
	if obj, ok := c.cache.get("", name); ok {
		return obj.(*schedulingv1.PriorityClass), nil
	}
	return nil, apierrors.NewNotFound(PriorityClasses.GroupResource(), name)
}

// List returns every class, once the cache has loaded them (it waits
// for that, or for ctx, whose error it then returns).
func (c *PriorityClassCache) List(ctx context.Context) ([]*schedulingv1.PriorityClass, error) {
	if !c.cache.waitForSync(ctx) {
		return nil, ctx.Err()
	}
	objs := c.cache.list("")
	out := make([]*schedulingv1.PriorityClass, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*schedulingv1.PriorityClass))
	}
	return out, nil
}
