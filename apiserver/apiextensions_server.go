package apiserver

import (
	"context"
	"net/http"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// APIExtensionsServer is the apiextensions server of the delegation
// chain, as upstream's: apiextensions.k8s.io/v1 (customresourcedefinitions)
// from its own go-restful Container, and everything else through the
// crdHandler, which serves the custom resources and discovery of the
// established CRDs and hands what no CRD serves to delegate (the
// not-found handler). Its controllers run from the post-start hooks
// start-apiextensions-informers, start-apiextensions-controllers and
// crd-informer-synced (crd_controller.go).
func (s *Server) APIExtensionsServer(delegate http.Handler) http.Handler {
	c := s.NewContainer()
	c.Add(s.GroupWebService(s.extensions))
	c.Add(s.GroupDiscoveryService(s.extensions))
	crds := newCRDHandler(s, delegate)
	if err := newCRDController(s, crds).addHooks(); err != nil {
		// Only a second registration of the same names can fail: a bug.
		panic("apiserver: apiextensions hooks: " + err.Error())
	}
	return &director{name: ServerAPIExtensions, container: c, nonGoRestful: crds}
}

// extensionsGroup lays out apiextensions.k8s.io/v1.
func extensionsGroup(reg *registry.Registry) *Group {
	gv := apiextensionsv1.SchemeGroupVersion
	crds := newEndpoint(gv, registry.CustomResourceDefinitions, reg)
	crds.delete = func(ctx context.Context, _, name string, validate registry.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
		return registry.DeleteCustomResourceDefinition(ctx, reg.CustomResourceDefinitions, name, validate, opts)
	}
	return &Group{gv: gv, endpoints: []*endpoint{crds}}
}
