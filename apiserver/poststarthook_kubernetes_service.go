package apiserver

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/apiserver/controlplane"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// HookBootstrapController keeps the kubernetes Service in default and its
// Endpoints listing every live API server, as kube-apiserver's
// bootstrap-controller post-start hook (and its pre-shutdown hook of the
// same name) does.
const HookBootstrapController = "bootstrap-controller"

// bootstrapControllerHook creates the kubernetes Service (10.96.0.1:443)
// and runs the lease endpoint reconciler (controlplane.LeaseEndpointReconciler) every
// EndpointReconcilerInterval, retrying until the first pass has worked,
// so that `kubectl cluster-info` finds the control plane; the first pass
// also sets the Endpoints' port, later ones keep it (upstream's
// UpdateKubernetesService(reconcile)). Upstream's hook only starts the
// controller; kubesim's returns after the first pass, so that a ready
// server is listed.
//
// It registers the pre-shutdown hook that takes this server out: stop
// reconciling, delete its key, rewrite the Endpoints without it, bounded
// by twice the interval (upstream's Controller.Stop), so that a server
// shut down gracefully leaves the Endpoints at once, and one that dies
// leaves them when its key's TTL has passed.
func (s *Server) bootstrapControllerHook(ctx PostStartHookContext) error {
	host, port, err := registry.HostPort(s.ln.Addr().String())
	if err != nil {
		return fmt.Errorf("the API server's address: %w", err)
	}
	leases, err := registry.NewMasterLeases(s.cfg.Etcd, s.cfg.StorageMediaType, s.cfg.endpointReconcilerTTL())
	if err != nil {
		return err
	}
	rec := controlplane.NewLeaseEndpointReconciler(s.reg, leases)
	interval := s.cfg.endpointReconcilerInterval()
	s.addPreShutdownHook(HookBootstrapController, func() error {
		return stopEndpointReconciler(rec, host, int32(port), 2*interval)
	})
	first := true
	ensure := func(ctx context.Context) error {
		if err := s.reg.EnsureKubernetesService(ctx, port); err != nil {
			return err
		}
		if err := rec.ReconcileEndpoints(ctx, host, int32(port), first); err != nil {
			return err
		}
		first = false
		return nil
	}
	return s.ensureThenEvery(ctx, interval, ensure, "unable to sync kubernetes service")
}

// stopEndpointReconciler stops rec and removes host from the Endpoints,
// giving up after timeout (etcd unreachable: the key then expires).
func stopEndpointReconciler(rec *controlplane.LeaseEndpointReconciler, host string, port int32, timeout time.Duration) error {
	rec.StopReconciling()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := rec.RemoveEndpoints(ctx, host, port); err != nil {
		return fmt.Errorf("unable to remove %s from the kubernetes endpoints: %w", net.JoinHostPort(host, strconv.Itoa(int(port))), err)
	}
	return nil
}
