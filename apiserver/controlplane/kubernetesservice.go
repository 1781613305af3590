package controlplane

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// KubernetesServiceConfig is what the kubernetes service controller needs
// of its API server (upstream's kubernetesservice.Config).
type KubernetesServiceConfig struct {
	// PublicIP is the address the server is listed under in the
	// Endpoints; Port is its port, which the Service's port 443 targets.
	PublicIP string
	Port     int
	// EndpointReconciler lists the live API servers in the Endpoints.
	EndpointReconciler *LeaseEndpointReconciler
	// EndpointInterval is how often the server syncs; Stop gives up
	// after twice as long.
	EndpointInterval time.Duration
}

// KubernetesServiceController keeps the kubernetes Service in default
// (10.96.0.1:443) and its Endpoints listing every live API server, as
// upstream's kubernetesservice controller, which kube-apiserver's
// bootstrap-controller post-start hook starts, so that `kubectl
// cluster-info` finds the control plane. Its owner calls Sync at once and
// then every EndpointInterval, from one goroutine at a time, and Stop
// when the server shuts down gracefully; Stop may run concurrently with
// Sync.
type KubernetesServiceController struct {
	reg *registry.Registry
	cfg KubernetesServiceConfig
	// synced is set once a Sync has succeeded; only Sync touches it.
	synced bool
}

// NewKubernetesServiceController returns the controller of cfg's server,
// which writes through reg.
func NewKubernetesServiceController(reg *registry.Registry, cfg KubernetesServiceConfig) *KubernetesServiceController {
	return &KubernetesServiceController{reg: reg, cfg: cfg}
}

// Sync is one pass: UpdateKubernetesService, setting the Endpoints' port
// until a pass has succeeded and keeping the stored one afterwards.
func (c *KubernetesServiceController) Sync(ctx context.Context) error {
	if err := c.UpdateKubernetesService(ctx, !c.synced); err != nil {
		return err
	}
	c.synced = true
	return nil
}

// UpdateKubernetesService creates the kubernetes Service if it is missing
// and reconciles its Endpoints (upstream's method of the same name); with
// reconcile the Endpoints' port is set to this server's, otherwise the
// stored one is kept.
func (c *KubernetesServiceController) UpdateKubernetesService(ctx context.Context, reconcile bool) error {
	if err := c.reg.EnsureKubernetesService(ctx, c.cfg.Port); err != nil {
		return err
	}
	return c.cfg.EndpointReconciler.ReconcileEndpoints(ctx, c.cfg.PublicIP, int32(c.cfg.Port), reconcile)
}

// Stop takes this server out: it stops reconciling, deletes its key and
// rewrites the Endpoints without it, giving up after twice the interval
// (etcd unreachable: the key then expires), as upstream's Controller.Stop.
// A server shut down gracefully thus leaves the Endpoints at once; one
// that dies leaves them when its key's TTL has passed.
func (c *KubernetesServiceController) Stop() error {
	rec, host, port := c.cfg.EndpointReconciler, c.cfg.PublicIP, int32(c.cfg.Port)
	rec.StopReconciling()
	ctx, cancel := context.WithTimeout(context.Background(), 2*c.cfg.EndpointInterval)
	defer cancel()
	if err := rec.RemoveEndpoints(ctx, host, port); err != nil {
		return fmt.Errorf("unable to remove %s from the kubernetes endpoints: %w", net.JoinHostPort(host, strconv.Itoa(int(port))), err)
	}
	return nil
}
