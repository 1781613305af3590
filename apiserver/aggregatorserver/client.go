package aggregatorserver

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/aggregator"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// apiServiceClient is the aggregator controllers' aggregator.Client: it
// writes through the registry's stores in the process (their strategies
// and validation run; authentication, authorization and admission do
// not, as for kube-apiserver's loopback client in system:masters).
//
// A status it writes is passed on at once to served (the aggregator's
// proxy), so that from the moment the API says an APIService is not
// Available the proxy answers 503 without trying its backend. Upstream's
// proxy learns it a moment later, through the APIService informer and the
// registration controller; kubesim closes that gap so that what a lesson
// reads from the API and what the proxy does agree.
type apiServiceClient struct {
	reg    *registry.Registry
	served func(*apiregv1.APIService)
}

var _ aggregator.Client = apiServiceClient{}

func (c apiServiceClient) Create(ctx context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	out, err := c.reg.APIServices.Create(ctx, "", a.DeepCopy(), nil, registry.Options{})
	if err != nil {
		return nil, err
	}
	return out.(*apiregv1.APIService), nil
}

func (c apiServiceClient) Update(ctx context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	return update(ctx, c.reg.APIServices, a)
}

func (c apiServiceClient) UpdateStatus(ctx context.Context, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	out, err := update(ctx, c.reg.APIServiceStatus, a)
	if err == nil && c.served != nil {
		c.served(out)
	}
	return out, err
}

// update writes a through st; a's resourceVersion must be current.
func update(ctx context.Context, st *registry.Store, a *apiregv1.APIService) (*apiregv1.APIService, error) {
	obj := a.DeepCopy()
	out, _, err := st.Update(ctx, "", a.Name, func(context.Context, runtime.Object) (runtime.Object, error) { return obj, nil }, nil, nil, registry.Options{})
	if err != nil {
		return nil, err
	}
	return out.(*apiregv1.APIService), nil
}

func (c apiServiceClient) Delete(ctx context.Context, name string, uid types.UID) error {
	_, _, err := c.reg.APIServices.Delete(ctx, "", name, nil, &metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(uid))})
	return err
}
