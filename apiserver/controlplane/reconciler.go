package controlplane

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// The lease endpoint reconciler's periods: upstream's
// DefaultEndpointReconcilerInterval (how often each API server renews
// its key and reconciles the kubernetes Endpoints) and
// DefaultEndpointReconcilerTTL (how long a key outlives its last
// renewal: the interval and 5 s of wiggle room), pkg/controlplane.
const (
	DefaultEndpointReconcilerInterval = 10 * time.Second
	DefaultEndpointReconcilerTTL      = 15 * time.Second
)

// errNoMasterLeases is upstream's refusal to empty the Endpoints when
// the listing holds no server, not even the one that just wrote its key.
var errNoMasterLeases = errors.New("no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service")

// LeaseEndpointReconciler keeps the kubernetes Endpoints and EndpointSlice
// listing every live API server, as upstream's lease reconciler
// (kube-apiserver's default --endpoint-reconciler-type=lease,
// pkg/controlplane/reconcilers/lease.go) does: each server renews its
// key in registry.MasterLeases every interval and rewrites the
// Endpoints from the keys it lists; a server that stops renewing drops
// out once its key's TTL has passed, at the next reconcile of any other
// server. Every address gets the one port of the Endpoints, so API
// servers on one machine listen on different IPs with the same port.
//
// Safe for concurrent use: reconciles and the removal are serialized,
// and after StopReconciling no reconcile writes again.
type LeaseEndpointReconciler struct {
	reg    *registry.Registry
	leases *registry.MasterLeases

	mu      sync.Mutex
	stopped atomic.Bool
}

// NewLeaseEndpointReconciler returns the reconciler that writes the
// kubernetes Endpoints and EndpointSlice through reg from the API servers
// listed in leases (kube-apiserver's NewLeaseEndpointReconciler).
func NewLeaseEndpointReconciler(reg *registry.Registry, leases *registry.MasterLeases) *LeaseEndpointReconciler {
	return &LeaseEndpointReconciler{reg: reg, leases: leases}
}

// ReconcileEndpoints renews ip's key, then writes the Endpoints from the
// keys listed. With reconcilePorts the port is set to port; otherwise the
// stored port is kept. kubesim asks for it on a server's first pass;
// kube-apiserver v1.37's kubernetes service controller never does (it
// passes false on every pass), so there the port is written only when the
// Endpoints are made or found malformed. After StopReconciling it does
// nothing.
func (r *LeaseEndpointReconciler) ReconcileEndpoints(ctx context.Context, ip string, port int32, reconcilePorts bool) error {
	if r.stopped.Load() {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped.Load() {
		return nil
	}
	// The key is renewed whatever happens below, so that the other
	// servers list this one.
	if err := r.leases.UpdateLease(ctx, ip); err != nil {
		return err
	}
	return r.doReconcile(ctx, port, reconcilePorts)
}

// RemoveEndpoints deletes ip's key and writes the Endpoints without it,
// as a server shutting down gracefully does (upstream's
// RemoveEndpoints, called after StopReconciling).
func (r *LeaseEndpointReconciler) RemoveEndpoints(ctx context.Context, ip string, port int32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.leases.RemoveLease(ctx, ip); err != nil {
		return err
	}
	return r.doReconcile(ctx, port, true)
}

// StopReconciling makes every later ReconcileEndpoints a no-op.
func (r *LeaseEndpointReconciler) StopReconciling() { r.stopped.Store(true) }

// doReconcile writes the Endpoints from the listed keys; r.mu is held.
func (r *LeaseEndpointReconciler) doReconcile(ctx context.Context, port int32, reconcilePorts bool) error {
	cur, err := r.reg.KubernetesEndpoints(ctx)
	switch {
	case apierrors.IsNotFound(err):
		if r.stopped.Load() {
			return nil // nothing to take this server out of
		}
		cur = nil
	case err != nil:
		return err
	}
	ips, err := r.leases.ListLeases(ctx)
	if err != nil {
		return err
	}
	if !r.stopped.Load() && len(ips) == 0 {
		return errNoMasterLeases
	}
	if !reconcilePorts && cur != nil && len(cur.Subsets) == 1 && len(cur.Subsets[0].Ports) == 1 {
		port = cur.Subsets[0].Ports[0].Port
	}
	if err := r.reg.WriteKubernetesEndpoints(ctx, ips, port); err != nil {
		return fmt.Errorf("kubernetes endpoints: %w", err)
	}
	return nil
}
