package kubeapiserver

import (
	"context"
	"errors"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// rbacEscalation prevents privilege escalation through the RBAC API, as
// kube-apiserver's RBAC storage does: a Role or ClusterRole may only be
// written with rules its writer holds (or by one who may "escalate" it),
// a binding only made to a role whose rules its writer holds (or by one
// who may "bind" it); system:masters is exempt. A refusal is 403
// Forbidden with upstream's message, listing what the writer lacks.
//
// Writes without a request (the server's own bootstrap policy) are not
// checked: kube-apiserver makes them as system:masters.
type rbacEscalation struct {
	authz auth.Authorizer
	rules auth.RuleSource
}

// installRBACEscalationChecks puts the checks on the registry's RBAC
// stores, with authz (Node, then RBAC) and the rules of the RBAC cache.
func installRBACEscalationChecks(reg *registry.Registry, authz auth.Authorizer, rules auth.RuleSource) {
	e := rbacEscalation{authz: authz, rules: rules}
	reg.SetRBACWriteChecks(e.checkRole("roles"), e.checkRole("clusterroles"), e.checkBinding("rolebindings"), e.checkBinding("clusterrolebindings"))
}

// writer returns the attributes of the request in ctx (its user, its
// namespace, the name in its path: none for a create); ok is false for a
// write the server makes itself.
func writer(ctx context.Context) (a auth.Attributes, ok bool) {
	a, ok = request.AttributesFrom(ctx)
	return a, ok && a.User != nil
}

// checkRole is the check of Roles (resource "roles") or ClusterRoles
// ("clusterroles"). Setting or changing a ClusterRole's aggregationRule,
// which may gather any rule, needs every permission (cluster-admin's).
// The request's trace gets an "escalation" step saying why it passed or
// not.
func (e rbacEscalation) checkRole(resource string) func(ctx context.Context, obj, old runtime.Object) error {
	return func(ctx context.Context, obj, old runtime.Object) error {
		a, ok := writer(ctx)
		if !ok {
			return nil
		}
		why, err := e.roleVerdict(ctx, a, resource, obj, old)
		traceEscalation(ctx, why, err)
		return err
	}
}

// roleVerdict decides checkRole's case: the error to answer with (nil:
// allowed) and, when allowed, why.
func (e rbacEscalation) roleVerdict(ctx context.Context, a auth.Attributes, resource string, obj, old runtime.Object) (string, error) {
	if auth.EscalationAllowed(a.User) {
		return "not checked: " + auth.GroupMasters + " may grant anything", nil
	}
	// As upstream, "escalate" is asked with the name in the request's
	// path: a create has none, so only a rule without resourceNames lets
	// one create a role with any rules.
	if auth.RoleEscalationAuthorized(ctx, e.authz, a.User, resource, a.Namespace, a.Name) {
		return fmt.Sprintf("%q may escalate %s: any rules", a.User.Name, resource), nil
	}
	name, rules, aggregates := roleRules(obj)
	gr := rbacv1.Resource(resource)
	if err := auth.ConfirmNoEscalation(e.rules, a.User, a.Namespace, resource, rules); err != nil {
		return "", apierrors.NewForbidden(gr, name, err)
	}
	if _, _, oldAggregates := roleRules(old); aggregates || oldAggregates {
		if auth.ConfirmNoEscalation(e.rules, a.User, a.Namespace, resource, fullAuthority) != nil {
			return "", apierrors.NewForbidden(gr, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
		}
	}
	return fmt.Sprintf("%q holds every rule it writes", a.User.Name), nil
}

// traceEscalation records the check's outcome in the request's trace.
func traceEscalation(ctx context.Context, why string, err error) {
	if err != nil {
		request.TraceFrom(ctx).Step("escalation", "denied", err.Error())
		return
	}
	request.TraceFrom(ctx).Step("escalation", "allowed", "RBAC storage: "+why)
}

// fullAuthority is every permission: what an aggregationRule may gather.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// roleRules returns a Role's or ClusterRole's name and rules, and whether
// it has an aggregationRule with selectors (nil obj: none of them).
func roleRules(obj runtime.Object) (name string, rules []rbacv1.PolicyRule, aggregates bool) {
	switch r := obj.(type) {
	case *rbacv1.Role:
		return r.Name, r.Rules, false
	case *rbacv1.ClusterRole:
		return r.Name, r.Rules, r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
	}
	return "", nil, false
}

// checkBinding is the check of RoleBindings ("rolebindings") or
// ClusterRoleBindings ("clusterrolebindings"). A binding to a role that
// does not exist is refused with the store's NotFound (RoleRefRules),
// unless its writer may bind it. The request's trace gets an
// "escalation" step.
func (e rbacEscalation) checkBinding(resource string) func(ctx context.Context, obj, old runtime.Object) error {
	return func(ctx context.Context, obj, _ runtime.Object) error {
		a, ok := writer(ctx)
		if !ok {
			return nil
		}
		why, err := e.bindingVerdict(ctx, a, resource, obj)
		traceEscalation(ctx, why, err)
		return err
	}
}

// bindingVerdict decides checkBinding's case, as roleVerdict.
func (e rbacEscalation) bindingVerdict(ctx context.Context, a auth.Attributes, resource string, obj runtime.Object) (string, error) {
	if auth.EscalationAllowed(a.User) {
		return "not checked: " + auth.GroupMasters + " may grant anything", nil
	}
	name, ref := bindingRef(obj)
	if auth.BindingAuthorized(ctx, e.authz, a.User, ref, a.Namespace) {
		return fmt.Sprintf("%q may bind %s %q", a.User.Name, ref.Kind, ref.Name), nil
	}
	rules, err := auth.RoleRefRules(e.rules, ref, a.Namespace, resource)
	if err != nil {
		return "", err
	}
	if err := auth.ConfirmNoEscalation(e.rules, a.User, a.Namespace, resource, rules); err != nil {
		return "", apierrors.NewForbidden(rbacv1.Resource(resource), name, err)
	}
	return fmt.Sprintf("%q holds every rule of %s %q", a.User.Name, ref.Kind, ref.Name), nil
}

// bindingRef returns a RoleBinding's or ClusterRoleBinding's name and
// roleRef.
func bindingRef(obj runtime.Object) (string, rbacv1.RoleRef) {
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		return b.Name, b.RoleRef
	case *rbacv1.ClusterRoleBinding:
		return b.Name, b.RoleRef
	}
	return "", rbacv1.RoleRef{}
}
