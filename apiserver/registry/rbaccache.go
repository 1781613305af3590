package registry

import (
	"context"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
)

// RBACCache holds every Role, ClusterRole, RoleBinding and ClusterRoleBinding
// in memory, fed by watches, for the RBAC authorizer: a change to an RBAC
// object takes effect as soon as its watch event arrives. Safe for
// concurrent use.
type RBACCache struct {
	roles, clusterRoles, roleBindings, clusterRoleBindings *objectCache
}

// NewRBACCache returns an empty cache over the registry's RBAC stores; Run
// fills it.
func NewRBACCache(r *Registry) *RBACCache {
	return &RBACCache{
		roles:               newObjectCache(r.Roles),
		clusterRoles:        newObjectCache(r.ClusterRoles),
		roleBindings:        newObjectCache(r.RoleBindings),
		clusterRoleBindings: newObjectCache(r.ClusterRoleBindings),
	}
}

func (c *RBACCache) all() []*objectCache {
	return []*objectCache{c.roles, c.clusterRoles, c.roleBindings, c.clusterRoleBindings}
}

// Run keeps the cache current until ctx is done.
func (c *RBACCache) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, oc := range c.all() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			oc.run(ctx)
		}()
	}
	wg.Wait()
}

// WaitForSync blocks until all four kinds have loaded, or ctx is done.
func (c *RBACCache) WaitForSync(ctx context.Context) bool {
	for _, oc := range c.all() {
		if !oc.waitForSync(ctx) {
			return false
		}
	}
	return true
}

// GetClusterRole returns a ClusterRole by name.
func (c *RBACCache) GetClusterRole(name string) (*rbacv1.ClusterRole, bool) {
	obj, ok := c.clusterRoles.get("", name)
	if !ok {
		return nil, false
	}
	return obj.(*rbacv1.ClusterRole), true
}

// GetRole returns a Role by namespace and name.
func (c *RBACCache) GetRole(namespace, name string) (*rbacv1.Role, bool) {
	obj, ok := c.roles.get(namespace, name)
	if !ok {
		return nil, false
	}
	return obj.(*rbacv1.Role), true
}

// ListClusterRoleBindings returns every ClusterRoleBinding.
func (c *RBACCache) ListClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	objs := c.clusterRoleBindings.list("")
	out := make([]*rbacv1.ClusterRoleBinding, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*rbacv1.ClusterRoleBinding))
	}
	return out
}

// ListRoleBindings returns the RoleBindings of a namespace.
func (c *RBACCache) ListRoleBindings(namespace string) []*rbacv1.RoleBinding {
	objs := c.roleBindings.list(namespace)
	out := make([]*rbacv1.RoleBinding, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*rbacv1.RoleBinding))
	}
	return out
}
