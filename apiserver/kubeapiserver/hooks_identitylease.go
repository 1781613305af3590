package kubeapiserver

import (
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/controlplane"
)

// The identity lease hooks, under kube-apiserver's names
// (pkg/controlplane/apiserver/server.go).
const (
	HookIdentityLeaseController     = "start-kube-apiserver-identity-lease-controller"
	HookIdentityLeaseGarbageCollect = "start-kube-apiserver-identity-lease-garbage-collector"
)

// identityLeaseHook starts the controller of this server's identity Lease
// (controlplane.IdentityLeaseController), named after its listen address,
// and returns, as upstream's hook does.
func (s *Server) identityLeaseHook(ctx apiserver.PostStartHookContext) error {
	c, err := controlplane.NewIdentityLeaseController(s.reg, s.generic.Addr().String(), s.cfg.IdentityLease, s.generic.ErrorLog().Printf)
	if err != nil {
		return err
	}
	ctx.Go(c.Run)
	return nil
}

// identityLeaseGCHook starts the garbage collector of expired identity
// Leases (controlplane.APIServerLeaseGC) and returns, as upstream's hook
// does.
func (s *Server) identityLeaseGCHook(ctx apiserver.PostStartHookContext) error {
	ctx.Go(controlplane.NewAPIServerLeaseGC(s.reg, s.cfg.IdentityLease, s.generic.ErrorLog().Printf).Run)
	return nil
}
