package aggregatorserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregator"
)

// The aggregator's post-start hooks, upstream's names (kube-aggregator's,
// and kube-apiserver-autoregistration of kube-apiserver's
// CreateAggregatorServer). Upstream's apiservice-discovery-controller and
// apiservice-openapi-controller have no counterpart: kubesim's /apis asks
// each APIService for its resources when it is asked (apis.go).
const (
	HookAggregatorInformers    = "start-kube-aggregator-informers"
	HookAPIServiceRegistration = "apiservice-registration-controller"
	HookLocalAvailable         = "apiservice-status-local-available-controller"
	HookRemoteAvailable        = "apiservice-status-remote-available-controller"
	HookAutoRegistration       = "kube-apiserver-autoregistration"
)

// addHooks builds the aggregator's controllers and registers the hooks
// that start them and its health check; listed are the group-version
// paths of its delegates, for the local APIServices. It panics if a hook cannot be added (a name
// registered twice), as upstream's AddPostStartHookOrDie.
func (s *Server) addHooks(listed []string) {
	g := s.generic
	cfg := &g.Config().Aggregator
	client := apiServiceClient{reg: g.Registry(), served: s.handler.AddAPIService}
	reg, err := aggregator.NewRegistrationController(s.apiServices, s.handler)
	must(err)
	local, err := aggregator.NewLocalAvailabilityController(s.apiServices, client)
	must(err)
	remote, err := aggregator.NewRemoteAvailabilityController(s.apiServices, aggregator.RemoteAvailabilityConfig{
		Client: client, Resolver: resolver(cfg), ClientCert: cfg.ProxyClientCert, Period: cfg.ProbePeriod,
	})
	must(err)
	auto, err := aggregator.NewAutoRegisterController(s.apiServices, client)
	must(err)
	crds, err := aggregator.NewCRDRegistrationController(s.crds, auto)
	must(err)
	s.local = aggregator.LocalAPIServices(listed)
	for _, svc := range s.local {
		auto.AddAPIServiceToSyncOnStart(svc)
	}
	s.completion, err = aggregator.NewCompletionCheck(s.apiServices, s.local)
	must(err)

	must(g.AddPostStartHook(HookAggregatorInformers, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(s.apiServices.RunWithContext)
		ctx.Go(s.crds.RunWithContext)
		return nil
	}))
	must(g.AddPostStartHook(HookAPIServiceRegistration, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(reg.Run)
		select {
		case <-ctx.Done():
		case <-reg.Initiated():
		}
		return nil
	}))
	must(g.AddPostStartHook(HookLocalAvailable, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(local.Run)
		return nil
	}))
	must(g.AddPostStartHook(HookRemoteAvailable, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(remote.Run)
		return nil
	}))
	must(g.AddPostStartHook(HookAutoRegistration, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(crds.Run)
		ctx.Go(func(ctx context.Context) {
			// The CRDs that exist first, so that the autoregister
			// controller's first pass does not delete their APIServices.
			crds.WaitForInitialSync(ctx)
			auto.Run(ctx)
		})
		return nil
	}))
	// The boot-sequence check of /healthz, /livez and /readyz:
	// autoregister-completion fails with "missing APIService: [...]" until
	// every APIService kube-apiserver registers for its own group-versions
	// has been seen Available, as upstream's.
	c := s.completion
	g.AddHealthCheck(aggregator.CompletionCheckName, func(*http.Request) error { return c.Check() })
}

// must panics on err: for registrations that fail only on a programming
// error.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("apiserver: aggregator: %v", err))
	}
}
