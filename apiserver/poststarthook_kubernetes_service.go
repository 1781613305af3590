package apiserver

import (
	"context"
	"fmt"
	"time"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// HookBootstrapController keeps the kubernetes Service in default and its
// Endpoints pointing at this server, as kube-apiserver's
// bootstrap-controller post-start hook does.
const HookBootstrapController = "bootstrap-controller"

// kubernetesServiceInterval is how often the Service and its Endpoints
// are checked again (upstream's --endpoint-reconciler interval, 10 s).
const kubernetesServiceInterval = 10 * time.Second

// bootstrapControllerHook creates the kubernetes Service (10.96.0.1:443)
// and its Endpoints (this server's address), retrying until that has
// worked once, then reconciles them every kubernetesServiceInterval, so
// that `kubectl cluster-info` finds the control plane. Upstream's hook
// only starts the controller; kubesim's returns after the first pass, so
// that a ready server has the Service.
func (s *Server) bootstrapControllerHook(ctx PostStartHookContext) error {
	host, port, err := registry.HostPort(s.ln.Addr().String())
	if err != nil {
		return fmt.Errorf("the API server's address: %w", err)
	}
	ensure := func(ctx context.Context) error { return s.reg.EnsureKubernetesService(ctx, host, port) }
	return s.ensureThenEvery(ctx, kubernetesServiceInterval, ensure, "unable to sync kubernetes service")
}
