package kubeapiserver

import (
	"fmt"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/controlplane"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// HookBootstrapController keeps the kubernetes Service in default and its
// Endpoints listing every live API server, as kube-apiserver's
// bootstrap-controller post-start hook does. kubesim registers its
// pre-shutdown hook under the same name; kube-apiserver v1.37 names that
// one stop-kubernetes-service-controller.
const HookBootstrapController = "bootstrap-controller"

// bootstrapControllerHook runs the kubernetes service controller
// (controlplane.KubernetesServiceController) of this server, on its
// listen address and with the lease endpoint reconciler on its etcd:
// a first pass, retried until it has worked, then one every
// EndpointReconcilerInterval. Upstream's hook only starts the controller;
// kubesim's returns after the first pass, so that a ready server is
// listed.
//
// It registers the pre-shutdown hook that stops the controller, taking
// this server out of the Endpoints.
func (s *Server) bootstrapControllerHook(ctx apiserver.PostStartHookContext) error {
	host, port, err := registry.HostPort(s.generic.Addr().String())
	if err != nil {
		return fmt.Errorf("the API server's address: %w", err)
	}
	leases, err := registry.NewMasterLeases(s.cfg.Etcd, s.cfg.StorageMediaType, s.cfg.ReconcilerTTL())
	if err != nil {
		return err
	}
	interval := s.cfg.ReconcilerInterval()
	c := controlplane.NewKubernetesServiceController(s.reg, controlplane.KubernetesServiceConfig{
		PublicIP:           host,
		Port:               port,
		EndpointReconciler: controlplane.NewLeaseEndpointReconciler(s.reg, leases),
		EndpointInterval:   interval,
	})
	s.generic.AddPreShutdownHook(HookBootstrapController, c.Stop)
	return s.ensureThenEvery(ctx, interval, c.Sync, "unable to sync kubernetes service")
}
