package apiserver

import (
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/aggregator"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// aggregatorState is what the aggregator keeps between requests: the
// informers on APIServices and CRDs (fed in the process), the handler that
// routes a request by its APIService (delegating local ones, proxying the
// others), and the controllers the post-start hooks run.
type aggregatorState struct {
	apiServices cache.SharedIndexInformer
	crds        cache.SharedIndexInformer
	handler     *aggregator.Handler
	// local are the APIServices kube-apiserver registers for the
	// group-versions it serves (autoregister-completion waits for them).
	local      []*apiregistrationv1.APIService
	completion *aggregator.CompletionCheck
	// container is the aggregator's go-restful Container
	// (apiregistration.k8s.io), asked in the process for its discovery.
	container *restful.Container
}

// aggregatorServer is the aggregator of the delegation chain, the first
// server a request reaches, as kube-aggregator: it serves
// apiregistration.k8s.io/v1 (apiservices) from its own go-restful
// Container, /apis and /apis/<group> from the APIServices (aggregator_apis.go),
// and sends every other request by its APIService: a local one (and a
// path no APIService claims) to delegate (kube-apiserver), a remote one
// through the proxy to its backend. Its controllers start in post-start
// hooks (aggregator_hooks.go).
func (s *Server) aggregatorServer(delegate http.Handler) http.Handler {
	c := s.newServerContainer()
	c.Add(s.groupWebService(s.registration))
	c.Add(s.groupDiscoveryService(s.registration))
	cfg := &s.cfg.Aggregator
	a := &aggregatorState{
		apiServices: storeInformer(s.reg.APIServices, &apiregistrationv1.APIService{}),
		crds:        storeInformer(s.reg.CustomResourceDefinitions, &apiextensionsv1.CustomResourceDefinition{}),
		handler: aggregator.NewHandler(delegate, aggregator.ProxyConfig{
			ClientCert: cfg.ProxyClientCert,
			Resolver:   cfg.resolver(),
			UserFrom:   proxyUser,
			Hop:        func(r *http.Request, outcome, text string) { traceHop(r, serverAggregator, outcome, text) },
		}),
	}
	a.container = c
	s.agg = a
	s.addAggregatorHooks()
	return &director{name: serverAggregator, container: c, nonGoRestful: http.HandlerFunc(s.serveAggregated)}
}

// proxyUser is the authenticated user of r, for the X-Remote-* headers.
func proxyUser(r *http.Request) (aggregator.User, bool) {
	attrs, ok := requestAttributes(r.Context())
	if !ok || attrs.User == nil {
		return aggregator.User{}, false
	}
	u := attrs.User
	return aggregator.User{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}, true
}

// serveAggregated serves what the aggregator's Container does not claim:
// /apis, /apis/<group> of a group with APIServices, and the rest by
// APIService.
func (s *Server) serveAggregated(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch group, isGroup := strings.CutPrefix(path, "/apis/"); {
	case path == "/apis":
		traceHop(r, serverAggregator, "served", "/apis from the APIServices")
		s.serveAPIs(w, r)
		return
	case isGroup && group != "" && !strings.Contains(group, "/"):
		if s.serveAPIGroup(w, r, group) {
			return
		}
	}
	s.agg.handler.ServeHTTP(w, r)
}

// registrationGroup lays out apiregistration.k8s.io/v1.
func registrationGroup(reg *registry.Registry) *group {
	gv := apiregistrationv1.SchemeGroupVersion
	apiServices := newEndpoint(gv, registry.APIServices, reg)
	return &group{gv: gv, endpoints: []*endpoint{apiServices}}
}
