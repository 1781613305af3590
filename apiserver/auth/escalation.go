package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// RBAC escalation prevention, as kube-apiserver's RBAC storage does it
// (pkg/registry/rbac: escalation_check.go, validation/rule.go, and the
// policybased storage of the four RBAC resources): a user may write a
// Role or ClusterRole only with rules it already holds, and bind a role
// only if it already holds every rule of it, unless it is in
// system:masters or may "escalate" that role, or "bind" it.

// EscalationAllowed reports whether u may grant anything: a member of
// system:masters, whom the API server itself uses (upstream's
// EscalationAllowed). Nobody else is exempt, a cluster-admin binding
// included: such a user passes the checks because it holds every rule.
func EscalationAllowed(u *User) bool {
	return u != nil && u.InGroup(GroupMasters)
}

// RoleEscalationAuthorized reports whether authz lets u "escalate" the
// role (resource "roles" or "clusterroles") named name in namespace: it
// may then write any rules into it (upstream's RoleEscalationAuthorized).
func RoleEscalationAuthorized(ctx context.Context, authz Authorizer, u *User, resource, namespace, name string) bool {
	return allowed(ctx, authz, Attributes{User: u, Verb: "escalate", APIGroup: rbacv1.GroupName, APIVersion: "*",
		Resource: resource, Namespace: namespace, Name: name, ResourceRequest: true})
}

// BindingAuthorized reports whether authz lets u "bind" the role that ref
// names, in bindingNamespace ("" for a ClusterRoleBinding): it may then
// bind it without holding its rules (upstream's BindingAuthorized).
func BindingAuthorized(ctx context.Context, authz Authorizer, u *User, ref rbacv1.RoleRef, bindingNamespace string) bool {
	a := Attributes{User: u, Verb: "bind", APIGroup: ref.APIGroup, APIVersion: "*", Name: ref.Name,
		Namespace: bindingNamespace, ResourceRequest: true}
	switch ref.Kind {
	case "ClusterRole":
		a.Resource = "clusterroles"
	case "Role":
		a.Resource = "roles"
	default:
		return false
	}
	return allowed(ctx, authz, a)
}

func allowed(ctx context.Context, authz Authorizer, a Attributes) bool {
	if authz == nil {
		return false
	}
	res, err := authz.Authorize(ctx, a)
	return err == nil && res.Decision == DecisionAllow
}

// RoleRefRules returns the rules of the role ref names, for a binding in
// bindingNamespace ("" for a ClusterRoleBinding), as the API server's
// storage reads it during a write of resource (e.g. "rolebindings"). A
// missing role is a NotFound that names the role with the resource of the
// request, not "roles": kube-apiserver's store takes the resource of its
// errors from the request's context (so `kubectl create rolebinding x
// --role=nope` by a user without "bind" answers `rolebindings.rbac.
// authorization.k8s.io "nope" not found`).
func RoleRefRules(src RuleSource, ref rbacv1.RoleRef, bindingNamespace, resource string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if bindingNamespace == "" {
			return nil, errors.New("must provide namespace when getting role")
		}
		if r, ok := src.GetRole(bindingNamespace, ref.Name); ok && r != nil {
			return r.Rules, nil
		}
	case "ClusterRole":
		if r, ok := src.GetClusterRole(ref.Name); ok && r != nil {
			return r.Rules, nil
		}
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
	return nil, apierrors.NewNotFound(rbacv1.Resource(resource), ref.Name)
}

// ConfirmNoEscalation returns nil if the rules RBAC grants u in namespace
// ("" for the cluster scope: ClusterRoleBindings only) cover rules, during
// a write of resource (for RoleRefRules' errors), and
// otherwise the error kube-apiserver gives, which lists the rules u does
// not hold, one per line:
//
//	user "me" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//	{APIGroups:["*"], Resources:["*"], Verbs:["*"]}
//
// A binding of u's to a role that does not exist adds "; resolution
// errors: [...]" (the rules found still count).
func ConfirmNoEscalation(src RuleSource, u *User, namespace, resource string, rules []rbacv1.PolicyRule) error {
	if u == nil {
		return errors.New("no user on context")
	}
	owned, resolveErr := RBACPolicyRules(src, u, namespace, resource)
	ok, missing := validation.Covers(owned, rules)
	if ok {
		return nil
	}
	lines := make([]string, 0, len(missing))
	for _, r := range compactRules(missing) {
		if s := compactString(r); !slices.Contains(lines, s) {
			lines = append(lines, s)
		}
	}
	slices.Sort(lines)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.Name, u.Groups, strings.Join(lines, "\n"))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: %v", []error{resolveErr})
	}
	return errors.New(msg)
}

// RBACPolicyRules returns every rule RBAC grants u in namespace: those of
// the roles of the ClusterRoleBindings naming u, then, for a namespace,
// of its RoleBindings naming u (upstream's RuleResolver.RulesFor, read
// through the storage during a write of resource: a missing role is an
// error of RoleRefRules, aggregated; the rules found are returned with
// it).
func RBACPolicyRules(src RuleSource, u *User, namespace, resource string) ([]rbacv1.PolicyRule, error) {
	var (
		rules []rbacv1.PolicyRule
		errs  []error
	)
	add := func(ref rbacv1.RoleRef, bindingNamespace string) {
		rs, err := RoleRefRules(src, ref, bindingNamespace, resource)
		if err != nil {
			errs = append(errs, err)
			return
		}
		rules = append(rules, rs...)
	}
	forEachBoundRole(src, u, namespace, add)
	return rules, utilerrors.NewAggregate(errs)
}

// simpleResource identifies the rules compactRules merges.
type simpleResource struct {
	group, resource, name string
	named                 bool
}

// compactRules merges the rules that name one API group and one resource
// (and at most one resource name) and nothing else, adding up their
// verbs, as upstream's CompactRules does to the missing rules before it
// lists them; other rules stay as they are.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	merged := map[simpleResource]int{} // index in out
	for _, r := range rules {
		key, ok := simpleKey(r)
		if !ok {
			out = append(out, r)
			continue
		}
		if i, seen := merged[key]; seen {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[key] = len(out)
		out = append(out, *r.DeepCopy())
	}
	return out
}

// simpleKey returns the key of a rule compactRules may merge.
func simpleKey(r rbacv1.PolicyRule) (simpleResource, bool) {
	if len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 {
		return simpleResource{}, false
	}
	k := simpleResource{group: r.APIGroups[0], resource: r.Resources[0]}
	if len(r.ResourceNames) == 1 {
		k.name, k.named = r.ResourceNames[0], true
	}
	return k, true
}

// compactString writes a rule as kube-apiserver's messages do: only the
// fields that are set, in the order APIGroups, Resources,
// NonResourceURLs, ResourceNames, Verbs, each as a Go-quoted list.
func compactString(r rbacv1.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name   string
		values []string
	}{
		{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs},
		{"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs},
	} {
		if len(f.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.values))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
