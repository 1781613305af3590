package apiserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubesim/kubesim/apiserver/aggregator"
)

// The aggregator's post-start hooks, upstream's names (kube-aggregator's,
// and kube-apiserver-autoregistration of kube-apiserver's
// CreateAggregatorServer). Upstream's apiservice-discovery-controller and
// apiservice-openapi-controller have no counterpart: kubesim's /apis asks
// each APIService for its resources when it is asked (aggregator_apis.go).
const (
	HookAggregatorInformers    = "start-kube-aggregator-informers"
	HookAPIServiceRegistration = "apiservice-registration-controller"
	HookLocalAvailable         = "apiservice-status-local-available-controller"
	HookRemoteAvailable        = "apiservice-status-remote-available-controller"
	HookAutoRegistration       = "kube-apiserver-autoregistration"
)

// addAggregatorHooks builds the aggregator's controllers and registers the
// hooks that start them. It panics if a hook cannot be added (a name
// registered twice), as upstream's AddPostStartHookOrDie.
func (s *Server) addAggregatorHooks() {
	a := s.agg
	client := apiServiceClient{reg: s.reg, served: a.handler.AddAPIService}
	reg, err := aggregator.NewRegistrationController(a.apiServices, a.handler)
	must(err)
	local, err := aggregator.NewLocalAvailabilityController(a.apiServices, client)
	must(err)
	remote, err := aggregator.NewRemoteAvailabilityController(a.apiServices, aggregator.RemoteAvailabilityConfig{
		Client: client, Resolver: s.cfg.Aggregator.resolver(), ClientCert: s.cfg.Aggregator.ProxyClientCert, Period: s.cfg.Aggregator.ProbePeriod,
	})
	must(err)
	auto, err := aggregator.NewAutoRegisterController(a.apiServices, client)
	must(err)
	crds, err := aggregator.NewCRDRegistrationController(a.crds, auto)
	must(err)
	a.local = aggregator.LocalAPIServices(s.listedPaths())
	for _, svc := range a.local {
		auto.AddAPIServiceToSyncOnStart(svc)
	}
	a.completion, err = aggregator.NewCompletionCheck(a.apiServices, a.local)
	must(err)

	must(s.AddPostStartHook(HookAggregatorInformers, func(ctx PostStartHookContext) error {
		ctx.Go(a.apiServices.RunWithContext)
		ctx.Go(a.crds.RunWithContext)
		return nil
	}))
	must(s.AddPostStartHook(HookAPIServiceRegistration, func(ctx PostStartHookContext) error {
		ctx.Go(reg.Run)
		select {
		case <-ctx.Done():
		case <-reg.Initiated():
		}
		return nil
	}))
	must(s.AddPostStartHook(HookLocalAvailable, func(ctx PostStartHookContext) error {
		ctx.Go(local.Run)
		return nil
	}))
	must(s.AddPostStartHook(HookRemoteAvailable, func(ctx PostStartHookContext) error {
		ctx.Go(remote.Run)
		return nil
	}))
	must(s.AddPostStartHook(HookAutoRegistration, func(ctx PostStartHookContext) error {
		ctx.Go(crds.Run)
		ctx.Go(func(ctx context.Context) {
			// The CRDs that exist first, so that the autoregister
			// controller's first pass does not delete their APIServices.
			crds.WaitForInitialSync(ctx)
			auto.Run(ctx)
		})
		return nil
	}))
}

// must panics on err: for registrations that fail only on a programming
// error.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("apiserver: aggregator: %v", err))
	}
}

// listedPaths are the group-version paths the aggregator's delegates
// serve (upstream's ListedPaths of kube-apiserver, which include the
// apiextensions server's): /api/v1 and /apis/<group>/<version>.
func (s *Server) listedPaths() []string {
	var out []string
	for _, g := range append(append([]*group(nil), s.groups...), s.extensions) {
		out = append(out, rootPath(g.gv))
	}
	return out
}

// aggregatorHealthChecks are the aggregator's checks of /healthz, /livez
// and /readyz: autoregister-completion, which fails with "missing
// APIService: [...]" until every APIService kube-apiserver registers for
// its own group-versions has been seen Available, as upstream's
// boot-sequence check.
func (s *Server) aggregatorHealthChecks() []healthCheck {
	if s.agg == nil || s.agg.completion == nil {
		return nil
	}
	c := s.agg.completion
	return []healthCheck{{aggregator.CompletionCheckName, func(*http.Request) error { return c.Check() }}}
}
