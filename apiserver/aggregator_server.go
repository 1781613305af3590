package apiserver

import (
	"net/http"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// aggregatorServer is the aggregator of the delegation chain, the first
// server a request reaches: it serves apiregistration.k8s.io/v1
// (apiservices) from its own go-restful Container; any other path goes to
// delegate (kube-apiserver).
func (s *Server) aggregatorServer(delegate http.Handler) http.Handler {
	c := s.newServerContainer()
	c.Add(s.groupWebService(s.registration))
	c.Add(s.groupDiscoveryService(s.registration))
	return &director{name: serverAggregator, container: c, nonGoRestful: delegateTo(serverAggregator, delegate)}
}

// registrationGroup lays out apiregistration.k8s.io/v1.
func registrationGroup(reg *registry.Registry) *group {
	gv := apiregistrationv1.SchemeGroupVersion
	apiServices := &endpoint{gv: gv, res: registry.APIServices, store: reg.APIServices, verbs: allVerbs,
		subresources: []subresource{
			{name: subStatus, kind: gv.WithKind("APIService"), verbs: []string{verbGet, verbPatch, verbUpdate}, store: reg.APIServiceStatus},
		}}
	apiServices.delete = apiServices.store.Delete
	return &group{gv: gv, endpoints: []*endpoint{apiServices}}
}
