package apiserver

import (
	"net/http"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// apiExtensionsServer is the apiextensions server of the delegation
// chain: it serves apiextensions.k8s.io/v1 (customresourcedefinitions)
// from its own go-restful Container; any other path goes to delegate (the
// not-found handler).
func (s *Server) apiExtensionsServer(delegate http.Handler) http.Handler {
	c := s.newServerContainer()
	c.Add(s.groupWebService(s.extensions))
	c.Add(s.groupDiscoveryService(s.extensions))
	return &director{name: serverAPIExtensions, container: c, nonGoRestful: delegateTo(serverAPIExtensions, delegate)}
}

// extensionsGroup lays out apiextensions.k8s.io/v1.
func extensionsGroup(reg *registry.Registry) *group {
	gv := apiextensionsv1.SchemeGroupVersion
	crds := &endpoint{gv: gv, res: registry.CustomResourceDefinitions, store: reg.CustomResourceDefinitions, verbs: allVerbs,
		subresources: []subresource{
			{name: subStatus, kind: gv.WithKind("CustomResourceDefinition"), verbs: []string{verbGet, verbPatch, verbUpdate}, store: reg.CustomResourceDefinitionStatus},
		}}
	crds.delete = crds.store.Delete
	return &group{gv: gv, endpoints: []*endpoint{crds}}
}
