// Package kubeapiserver is the kube-apiserver of the delegation chain
// (package serverchain builds the chain), as upstream's pkg/controlplane:
// its go-restful Container serves the built-in groups, one WebService per
// group-version, and their discovery; its non-go-restful mux serves
// health, OpenAPI and profiling; any other path goes to its delegate, the
// apiextensions server. Its post-start hooks create the system namespaces
// and the default RBAC policy and start the control-plane controllers
// (package controlplane): the kubernetes Service and its Endpoints, the
// identity leases.
//
// The handlers of the built-in resources are the generic ones of package
// apiserver, as the layout of the built-in groups and the REST of their
// special subresources (pods/binding, pods/log, exec, serviceaccounts/token,
// the reviews) still are.
package kubeapiserver

import (
	"net/http"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// Server is kube-apiserver.
type Server struct {
	generic  *apiserver.Server
	cfg      *apiserver.Config
	reg      *registry.Registry
	rbac     *registry.RBACCache
	director http.Handler
}

// New builds kube-apiserver on g, in front of delegate. Its post-start
// hooks are added by AddPostStartHooks.
func New(g *apiserver.Server, delegate http.Handler) *Server {
	c := g.NewContainer()
	installRBACEscalationChecks(g.Registry(), g.Authorizer(), g.RBAC())
	rv := &reviews{g: g, rules: ruleResolver(g.RBAC())}
	g.AddReviews(rv.list()...)
	g.InstallAPIGroups(c)
	cfg := g.Config()
	installPodStreaming(g, coreWebService(c), &podStreams{reg: g.Registry(), cfg: &cfg.Kubelet, authorizer: g.Authorizer()})
	director := apiserver.NewDirector(apiserver.ServerKubeAPIServer, c, nonGoRestful(g, delegate))
	return &Server{generic: g, cfg: cfg, reg: g.Registry(), rbac: g.RBAC(), director: director}
}

// nonGoRestful is kube-apiserver's mux for what its Container does not
// serve: OpenAPI v3 and v2, the health endpoints, profiling; any other
// path goes to delegate.
func nonGoRestful(g *apiserver.Server, delegate http.Handler) http.Handler {
	const name = apiserver.ServerKubeAPIServer
	mux := http.NewServeMux()
	oa := g.OpenAPI()
	served := apiserver.ServedByMux(name, oa)
	mux.Handle(openapi.Path, served)
	mux.Handle(openapi.Path+"/", served)
	mux.Handle(openapi.PathV2, apiserver.ServedByMux(name, openapi.NewV2(oa)))
	health := apiserver.ServedByMux(name, g.HealthHandler())
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		mux.Handle(p, health)
		mux.Handle(p+"/", health)
	}
	apiserver.InstallProfiling(mux, name)
	mux.Handle("/", apiserver.DelegateTo(name, delegate))
	return mux
}

// AddPostStartHooks registers kube-apiserver's post-start hooks on the
// generic server (serverchain calls it right after New, before it builds
// the aggregator, as upstream's kube-apiserver adds them while it is
// built: /readyz lists them after the apiextensions server's, before the
// aggregator's).
func (s *Server) AddPostStartHooks() error {
	hooks := []struct {
		name string
		hook apiserver.PostStartHookFunc
	}{
		{HookSystemNamespaces, s.systemNamespacesHook},
		{HookBootstrapRoles, s.bootstrapRolesHook},
		{HookSystemPriorityClasses, s.systemPriorityClassesHook},
		{HookBootstrapController, s.bootstrapControllerHook},
		{HookIdentityLeaseController, s.identityLeaseHook},
		{HookIdentityLeaseGarbageCollect, s.identityLeaseGCHook},
	}
	for _, h := range hooks {
		if err := s.generic.AddPostStartHook(h.name, h.hook); err != nil {
			return err
		}
	}
	return nil
}

// ServeHTTP serves a request that reached kube-apiserver: its Container's
// paths, else its mux's.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.director.ServeHTTP(w, r) }
