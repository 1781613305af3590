// Package aggregatorserver is kube-aggregator, the first server of the
// delegation chain a request reaches (package serverchain builds the
// chain): it serves apiregistration.k8s.io/v1 (apiservices) from its own
// go-restful Container, /apis and /apis/<group> from the APIServices
// (apis.go), /healthz, /livez and /readyz from its own mux with the
// checks of the whole chain (as upstream's, which takes its delegates'
// checks), and sends every other request by its APIService: a local one
// (and a path no APIService claims) to its delegate, kube-apiserver, a
// remote one through the proxy (package aggregator) to its backend. Its
// controllers start in post-start hooks (hooks.go).
package aggregatorserver

import (
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregator"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Server is the aggregator. It keeps, between requests, the informers on
// APIServices and CRDs (fed in the process), the handler that routes a
// request by its APIService (delegating local ones, proxying the others),
// and the controllers the post-start hooks run.
type Server struct {
	generic     *apiserver.Server
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
	director  http.Handler
	// metrics serves /metrics, health /healthz, /livez and /readyz (and
	// each check's path) with the checks of the whole chain: every server
	// of upstream's chain installs them on its own mux (PrepareRun), and
	// the first, the aggregator, answers.
	metrics, health http.Handler
}

// New builds the aggregator on g, in front of delegate (kube-apiserver),
// and registers its post-start hooks and its health check on g. listed are
// the group-version paths its delegates serve (g.ListedPaths). It panics
// if a hook cannot be added (a name registered twice), as upstream's
// AddPostStartHookOrDie.
func New(g *apiserver.Server, delegate http.Handler, listed []string) *Server {
	c := g.NewContainer()
	c.Add(g.GroupWebService(g.RegistrationGroup()))
	c.Add(g.GroupDiscoveryService(g.RegistrationGroup()))
	cfg := &g.Config().Aggregator
	reg := g.Registry()
	s := &Server{
		generic:     g,
		apiServices: storeInformer(reg.APIServices, &apiregistrationv1.APIService{}),
		crds:        storeInformer(reg.CustomResourceDefinitions, &apiextensionsv1.CustomResourceDefinition{}),
		handler: aggregator.NewHandler(delegate, aggregator.ProxyConfig{
			ClientCert: cfg.ProxyClientCert,
			Resolver:   resolver(cfg),
			UserFrom:   proxyUser,
			Hop: func(r *http.Request, outcome, text string) {
				apiserver.TraceHop(r, apiserver.ServerAggregator, outcome, text)
			},
		}),
		container: c,
		metrics:   apiserver.ServedByMux(apiserver.ServerAggregator, g.MetricsHandler()),
		health:    apiserver.ServedByMux(apiserver.ServerAggregator, g.HealthHandler()),
	}
	s.addHooks(listed)
	g.OnShutdown(s.handler.CloseIdleConnections)
	s.director = apiserver.NewDirector(apiserver.ServerAggregator, c, http.HandlerFunc(s.serveAggregated))
	return s
}

// Container is the aggregator's go-restful Container, for looking at:
// callers must not change it.
func (s *Server) Container() *restful.Container { return s.container }

// ServeHTTP serves a request that reached the aggregator: its Container's
// paths, else /apis and the groups of APIServices, else by APIService.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.director.ServeHTTP(w, r) }

// resolver returns c.Resolver, or an empty table.
func resolver(c *apiserver.AggregatorConfig) aggregator.Resolver {
	if c.Resolver == nil {
		return aggregator.NewStaticResolver()
	}
	return c.Resolver
}

// proxyUser is the authenticated user of r, for the X-Remote-* headers.
func proxyUser(r *http.Request) (aggregator.User, bool) {
	attrs, ok := request.AttributesFrom(r.Context())
	if !ok || attrs.User == nil {
		return aggregator.User{}, false
	}
	u := attrs.User
	return aggregator.User{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}, true
}

// serveAggregated serves what the aggregator's Container does not claim:
// /metrics and the health endpoints (its mux's), /apis, /apis/<group> of
// a group with APIServices, and the rest by APIService.
func (s *Server) serveAggregated(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" {
		s.metrics.ServeHTTP(w, r)
		return
	}
	if isHealthPath(r.URL.Path) {
		s.health.ServeHTTP(w, r)
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch group, isGroup := strings.CutPrefix(path, "/apis/"); {
	case path == "/apis":
		apiserver.TraceHop(r, apiserver.ServerAggregator, "served", "/apis from the APIServices")
		s.serveAPIs(w, r)
		return
	case isGroup && group != "" && !strings.Contains(group, "/"):
		if s.serveAPIGroup(w, r, group) {
			return
		}
	}
	s.handler.ServeHTTP(w, r)
}

// isHealthPath reports whether path is one the health endpoints are
// installed at: /healthz, /livez, /readyz, or below them (a check's own
// path), as upstream's healthz.InstallPathHandler registers them.
func isHealthPath(path string) bool {
	for _, base := range []string{"/healthz", "/livez", "/readyz"} {
		if path == base || strings.HasPrefix(path, base+"/") {
			return true
		}
	}
	return false
}
