package auth

import (
	"context"
	"errors"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// RuleSet is what a user may do in a namespace, as a SelfSubjectRulesReview
// reports it: the rules on resources, the rules on non-resource paths, and
// whether the list is known to be incomplete.
type RuleSet struct {
	Resource    []authorizationv1.ResourceRule
	NonResource []authorizationv1.NonResourceRule
	Incomplete  bool
}

// RuleResolver lists the rules that apply to a user in a namespace, as
// kube-apiserver's authorizer.RuleResolver does (what `kubectl auth can-i
// --list` shows). The error, if any, says which rules could not be found;
// the rules returned still stand. Implementations must be safe for
// concurrent use.
type RuleResolver interface {
	RulesFor(ctx context.Context, u *User, namespace string) (RuleSet, error)
}

// errNodeRules is the Node authorizer's answer for a kubelet: its
// permissions depend on the objects bound to it and are not listed.
var errNodeRules = errors.New("node authorizer does not support user rule resolution")

// RulesFor answers as upstream's Node authorizer: nothing, and for a
// kubelet an incomplete list with errNodeRules.
func (z *nodeAuthorizer) RulesFor(_ context.Context, u *User, _ string) (RuleSet, error) {
	if _, isNode := nodeIdentity(u); isNode {
		return RuleSet{Incomplete: true}, errNodeRules
	}
	return RuleSet{}, nil
}

// RulesFor lists the rules of every role bound to u, as upstream's RBAC
// authorizer does: first through the ClusterRoleBindings, then through
// namespace's RoleBindings, each role's rules in order, one ResourceRule
// for a rule with resources and one NonResourceRule for a rule with
// non-resource URLs. A binding to a role that does not exist adds its
// NotFound error; the list is never marked incomplete.
func (z *rbacAuthorizer) RulesFor(_ context.Context, u *User, namespace string) (RuleSet, error) {
	var (
		set  RuleSet
		errs []error
	)
	if u == nil || z.src == nil {
		return set, nil
	}
	add := func(ref rbacv1.RoleRef, bindingNamespace string) {
		rules, err := z.roleRules(ref, bindingNamespace)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, r := range rules {
			set.addRule(r)
		}
	}
	forEachBoundRole(z.src, u, namespace, add)
	return set, utilerrors.NewAggregate(errs)
}

func (s *RuleSet) addRule(r rbacv1.PolicyRule) {
	if len(r.Resources) > 0 {
		s.Resource = append(s.Resource, authorizationv1.ResourceRule{
			Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames,
		})
	}
	if len(r.NonResourceURLs) > 0 {
		s.NonResource = append(s.NonResource, authorizationv1.NonResourceRule{
			Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs,
		})
	}
}

// UnionRules asks each resolver in turn, as kube-apiserver's union of rule
// resolvers does: the rules are concatenated, the set is incomplete if any
// part is, and the errors are returned together. Nil entries are skipped.
func UnionRules(resolvers ...RuleResolver) RuleResolver {
	return ruleUnion(resolvers)
}

type ruleUnion []RuleResolver

func (u ruleUnion) RulesFor(ctx context.Context, user *User, namespace string) (RuleSet, error) {
	var (
		out  RuleSet
		errs []error
	)
	for _, r := range u {
		if r == nil {
			continue
		}
		set, err := r.RulesFor(ctx, user, namespace)
		out.Resource = append(out.Resource, set.Resource...)
		out.NonResource = append(out.NonResource, set.NonResource...)
		out.Incomplete = out.Incomplete || set.Incomplete
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, utilerrors.NewAggregate(errs)
}

// NodeRuleResolver and RBACRuleResolver return the rule resolvers of the
// authorizers NewNodeAuthorizer and NewRBACAuthorizer build; kube-apiserver
// lists rules from the same authorizers it asks, in the same order.
func NodeRuleResolver() RuleResolver { return &nodeAuthorizer{rules: nodeRules()} }

// RBACRuleResolver: see NodeRuleResolver.
func RBACRuleResolver(src RuleSource) RuleResolver { return &rbacAuthorizer{src: src} }
