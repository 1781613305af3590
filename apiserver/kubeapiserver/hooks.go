package kubeapiserver

import (
	"context"
	"fmt"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The post-start hooks of kube-apiserver that kubesim runs, under their
// upstream names (and bootstrap-controller and the identity lease hooks,
// in files of their own), registered by Server.AddPostStartHooks.
// kube-apiserver runs more (storage-readiness, which waits
// for the watch caches; generic-apiserver-start-informers ...); kubesim
// does not do what they do after it serves, so it does not list them.
const (
	// HookSystemNamespaces creates kube-system, kube-public, default and
	// kube-node-lease when missing (upstream's systemnamespaces
	// controller, started by this hook, checks them every minute).
	HookSystemNamespaces = "start-system-namespaces-controller"
	// HookBootstrapRoles creates the default ClusterRoles and
	// ClusterRoleBindings (pkg/registry/rbac/rest's PostStartHookName).
	HookBootstrapRoles = "rbac/bootstrap-roles"
)

// Periods and bounds of the built-in hooks, upstream's.
const (
	// systemNamespacesInterval is how often the system namespaces
	// controller looks for a missing one.
	systemNamespacesInterval = time.Minute
	// bootstrapRolesRetry and bootstrapRolesTimeout: the RBAC hook tries
	// every second for 30 seconds, then fails (and the server with it).
	bootstrapRolesRetry   = time.Second
	bootstrapRolesTimeout = 30 * time.Second
	// cacheCatchUpPoll is how often the RBAC hook looks at the RBAC cache.
	cacheCatchUpPoll = 10 * time.Millisecond
)

// systemNamespacesHook creates the missing system namespaces, then keeps
// checking every minute, as upstream's controller does. Unlike upstream's
// hook, which only starts the controller, it returns once the first pass
// has succeeded (retrying until then), so that a ready kubesim has its
// namespaces: kubesim's own components and tests count on "default".
func (s *Server) systemNamespacesHook(ctx apiserver.PostStartHookContext) error {
	return s.ensureThenEvery(ctx, systemNamespacesInterval, s.reg.Bootstrap, "unable to create required kubernetes system Namespace")
}

// ensureThenEvery calls ensure until it has succeeded once (every
// bootstrapRolesRetry; an error only when ctx ends first), then again
// every interval in the hook's goroutine until the server stops, logging
// a failure with what.
func (s *Server) ensureThenEvery(ctx apiserver.PostStartHookContext, interval time.Duration, ensure func(context.Context) error, what string) error {
	for ensure(ctx) != nil {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bootstrapRolesRetry):
		}
	}
	ctx.Go(func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := ensure(ctx); err != nil && ctx.Err() == nil {
					s.generic.ErrorLog().Printf("%s: %v", what, err)
				}
			}
		}
	})
	return nil
}

// bootstrapRolesHook creates the default RBAC policy's missing roles and
// bindings, retrying for bootstrapRolesTimeout, as upstream's hook. Roles
// an admin changed are left as they are (upstream reconciles them: it
// adds missing rules unless rbac.authorization.kubernetes.io/autoupdate is
// "false"). It then waits until the RBAC cache, which the authorizer
// reads, holds them all, so that readiness means they are in force.
func (s *Server) bootstrapRolesHook(ctx apiserver.PostStartHookContext) error {
	roles, bindings := auth.BootstrapPolicy()
	deadline := time.Now().Add(bootstrapRolesTimeout)
	for {
		err := s.ensureBootstrapPolicy(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("unable to initialize roles: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bootstrapRolesRetry):
		}
	}
	for !s.rbacCacheHolds(roles, bindings) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(cacheCatchUpPoll):
		}
	}
	return nil
}

// ensureBootstrapPolicy creates the bootstrap roles and bindings missing.
func (s *Server) ensureBootstrapPolicy(ctx context.Context) error {
	roles, bindings := auth.BootstrapPolicy()
	for _, r := range roles {
		if _, err := s.reg.ClusterRoles.Create(ctx, "", r, nil, registry.Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("clusterrole %s: %w", r.Name, err)
		}
	}
	for _, b := range bindings {
		if _, err := s.reg.ClusterRoleBindings.Create(ctx, "", b, nil, registry.Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("clusterrolebinding %s: %w", b.Name, err)
		}
	}
	return nil
}

// rbacCacheHolds reports whether the RBAC cache has every role and
// binding named.
func (s *Server) rbacCacheHolds(roles []*rbacv1.ClusterRole, bindings []*rbacv1.ClusterRoleBinding) bool {
	for _, r := range roles {
		if _, ok := s.rbac.GetClusterRole(r.Name); !ok {
			return false
		}
	}
	have := map[string]bool{}
	for _, b := range s.rbac.ListClusterRoleBindings() {
		have[b.Name] = true
	}
	for _, b := range bindings {
		if !have[b.Name] {
			return false
		}
	}
	return true
}
