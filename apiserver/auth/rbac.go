package auth

import (
	"context"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// RuleSource is what the RBAC authorizer reads: the cluster's Roles,
// ClusterRoles and their bindings, usually a watch-fed cache. Its methods
// are called concurrently and must not block; the objects returned are
// read, never changed.
type RuleSource interface {
	GetClusterRole(name string) (*rbacv1.ClusterRole, bool)
	GetRole(namespace, name string) (*rbacv1.Role, bool)
	ListClusterRoleBindings() []*rbacv1.ClusterRoleBinding
	ListRoleBindings(namespace string) []*rbacv1.RoleBinding
}

// ServiceAccountUsernamePrefix starts the user name of a service account:
// system:serviceaccount:<namespace>:<name>.
const ServiceAccountUsernamePrefix = "system:serviceaccount:"

// AuthorizerRBAC and AuthorizerNode are the Result.Authorizer values.
const (
	AuthorizerRBAC = "RBAC"
	AuthorizerNode = "Node"
)

type rbacAuthorizer struct{ src RuleSource }

// NewRBACAuthorizer returns the RBAC authorizer over src, with
// kube-apiserver's semantics. It looks for a rule that allows the request
// among the roles bound to the user, first through every
// ClusterRoleBinding, then, for a request in a namespace, through that
// namespace's RoleBindings (a RoleBinding may grant a ClusterRole's rules,
// only inside its own namespace). A binding applies when one of its
// subjects is the user (kind User), one of the user's groups (Group), or
// the service account whose user name is
// system:serviceaccount:<namespace>:<name> (ServiceAccount; a RoleBinding's
// subject without namespace means the binding's namespace). See RuleAllows
// for how a rule matches.
//
// The first allowing rule gives Allow, with upstream's reason, e.g.
//
//	RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"
//	RBAC: allowed by RoleBinding "dev/team-a" of ClusterRole "edit" to ServiceAccount "builder/team-a"
//
// Otherwise the answer is NoOpinion (Chain then denies) whose reason, when
// a binding refers to a role that does not exist, lists those errors as
// upstream does: `RBAC: clusterrole.rbac.authorization.k8s.io "x" not
// found`. A nil user is granted nothing.
func NewRBACAuthorizer(src RuleSource) Authorizer { return &rbacAuthorizer{src: src} }

func (z *rbacAuthorizer) Authorize(_ context.Context, a Attributes) (Result, error) {
	noOpinion := Result{Decision: DecisionNoOpinion, Authorizer: AuthorizerRBAC}
	if a.User == nil || z.src == nil {
		return noOpinion, nil
	}
	var errs []error
	for _, b := range z.src.ListClusterRoleBindings() {
		i, ok := subjectIndex(a.User, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := z.roleRules(b.RoleRef, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r, ok := firstAllowing(a, rules); ok {
			return Result{
				Decision:   DecisionAllow,
				Authorizer: AuthorizerRBAC,
				Reason: fmt.Sprintf("RBAC: allowed by ClusterRoleBinding %q of %s %q to %s",
					b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(b.Subjects[i], "")),
				Rule: DescribeRule(r),
			}, nil
		}
	}
	if a.Namespace != "" {
		for _, b := range z.src.ListRoleBindings(a.Namespace) {
			i, ok := subjectIndex(a.User, b.Subjects, a.Namespace)
			if !ok {
				continue
			}
			rules, err := z.roleRules(b.RoleRef, a.Namespace)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if r, ok := firstAllowing(a, rules); ok {
				return Result{
					Decision:   DecisionAllow,
					Authorizer: AuthorizerRBAC,
					Reason: fmt.Sprintf("RBAC: allowed by RoleBinding %q of %s %q to %s",
						b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(b.Subjects[i], b.Namespace)),
					Rule: DescribeRule(r),
				}, nil
			}
		}
	}
	if len(errs) > 0 {
		noOpinion.Reason = fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs))
	}
	return noOpinion, nil
}

// roleRules returns the rules of the role a binding refers to; namespace is
// the RoleBinding's namespace ("" for a ClusterRoleBinding). A missing role
// is upstream's NotFound error.
func (z *rbacAuthorizer) roleRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if namespace == "" {
			return nil, fmt.Errorf("must provide namespace when getting role")
		}
		r, ok := z.src.GetRole(namespace, ref.Name)
		if !ok || r == nil {
			return nil, apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name)
		}
		return r.Rules, nil
	case "ClusterRole":
		r, ok := z.src.GetClusterRole(ref.Name)
		if !ok || r == nil {
			return nil, apierrors.NewNotFound(rbacv1.Resource("clusterrole"), ref.Name)
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// forEachBoundRole calls visit with the roleRef of every binding that
// names u, as upstream's rule resolver visits them: first the
// ClusterRoleBindings (bindingNamespace ""), then, for a namespace, its
// RoleBindings.
func forEachBoundRole(src RuleSource, u *User, namespace string, visit func(ref rbacv1.RoleRef, bindingNamespace string)) {
	for _, b := range src.ListClusterRoleBindings() {
		if _, ok := subjectIndex(u, b.Subjects, ""); ok {
			visit(b.RoleRef, "")
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range src.ListRoleBindings(namespace) {
		if _, ok := subjectIndex(u, b.Subjects, namespace); ok {
			visit(b.RoleRef, namespace)
		}
	}
}

// subjectIndex returns the index of the first subject that is u;
// namespace is the binding's namespace ("" for a ClusterRoleBinding).
func subjectIndex(u *User, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i, s := range subjects {
		if subjectIs(u, s, namespace) {
			return i, true
		}
	}
	return 0, false
}

func subjectIs(u *User, s rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.Name == s.Name
	case rbacv1.GroupKind:
		return u.InGroup(s.Name)
	case rbacv1.ServiceAccountKind:
		ns := namespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		if ns == "" {
			return false
		}
		return u.Name == ServiceAccountUsernamePrefix+ns+":"+s.Name
	}
	return false
}

// describeSubject names a subject in a reason: `Group "system:masters"`,
// `ServiceAccount "name/namespace"`.
func describeSubject(s rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

func firstAllowing(a Attributes, rules []rbacv1.PolicyRule) (rbacv1.PolicyRule, bool) {
	for i := range rules {
		if RuleAllows(a, &rules[i]) {
			return rules[i], true
		}
	}
	return rbacv1.PolicyRule{}, false
}

// RuleAllows reports whether one RBAC rule allows the request, with
// upstream's matching: the verb is in Verbs or Verbs holds "*"; for a
// resource request the API group is in APIGroups (or "*"), Resources holds
// "*", the resource ("pods"), or with a subresource exactly
// "resource/subresource" ("pods/status") or "*/subresource", and
// ResourceNames is empty or holds the request's name; for a non-resource
// request NonResourceURLs holds "*", the path, or a prefix of it ending in
// "*" ("/api/*" matches "/api/v1" and "/api/").
func RuleAllows(a Attributes, r *rbacv1.PolicyRule) bool {
	if !matchesOrAll(r.Verbs, a.Verb, rbacv1.VerbAll) {
		return false
	}
	if !a.ResourceRequest {
		return nonResourceURLMatches(r.NonResourceURLs, a.Path)
	}
	return matchesOrAll(r.APIGroups, a.APIGroup, rbacv1.APIGroupAll) &&
		resourceMatches(r.Resources, a.Resource, a.Subresource) &&
		(len(r.ResourceNames) == 0 || contains(r.ResourceNames, a.Name))
}

func matchesOrAll(set []string, want, all string) bool {
	for _, s := range set {
		if s == all || s == want {
			return true
		}
	}
	return false
}

func resourceMatches(ruleResources []string, resource, subresource string) bool {
	combined := resource
	if subresource != "" {
		combined = resource + "/" + subresource
	}
	for _, rr := range ruleResources {
		if rr == rbacv1.ResourceAll || rr == combined {
			return true
		}
		if subresource != "" && rr == "*/"+subresource {
			return true
		}
	}
	return false
}

func nonResourceURLMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// DescribeRule renders a rule for a learner, e.g.
//
//	verbs=[get list watch] apiGroups=[""] resources=[pods]
//	verbs=[get update] apiGroups=["coordination.k8s.io"] resources=[leases] resourceNames=[kube-scheduler]
//	verbs=[get] nonResourceURLs=[/healthz /version]
func DescribeRule(r rbacv1.PolicyRule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verbs=%v", r.Verbs)
	if len(r.APIGroups) > 0 || len(r.Resources) > 0 {
		fmt.Fprintf(&b, " apiGroups=%q resources=%v", r.APIGroups, r.Resources)
	}
	if len(r.ResourceNames) > 0 {
		fmt.Fprintf(&b, " resourceNames=%v", r.ResourceNames)
	}
	if len(r.NonResourceURLs) > 0 {
		fmt.Fprintf(&b, " nonResourceURLs=%v", r.NonResourceURLs)
	}
	return b.String()
}
