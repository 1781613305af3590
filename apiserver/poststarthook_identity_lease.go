package apiserver

import "github.com/kubesim/kubesim/apiserver/controlplane"

// The identity lease hooks, under kube-apiserver's names
// (pkg/controlplane/apiserver/server.go).
const (
	HookIdentityLeaseController     = "start-kube-apiserver-identity-lease-controller"
	HookIdentityLeaseGarbageCollect = "start-kube-apiserver-identity-lease-garbage-collector"
)

// identityLeaseHook starts the controller of this server's identity Lease
// (controlplane.IdentityLeaseController), named after its listen address,
// and returns, as upstream's hook does.
func (s *Server) identityLeaseHook(ctx PostStartHookContext) error {
	c, err := controlplane.NewIdentityLeaseController(s.reg, s.ln.Addr().String(), s.cfg.IdentityLease, s.cfg.errorLog().Printf)
	if err != nil {
		return err
	}
	ctx.Go(c.Run)
	return nil
}

// identityLeaseGCHook starts the garbage collector of expired identity
// Leases (controlplane.APIServerLeaseGC) and returns, as upstream's hook
// does.
func (s *Server) identityLeaseGCHook(ctx PostStartHookContext) error {
	ctx.Go(controlplane.NewAPIServerLeaseGC(s.reg, s.cfg.IdentityLease, s.cfg.errorLog().Printf).Run)
	return nil
}
