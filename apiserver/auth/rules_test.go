package auth

import (
	"context"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
)

func hasResourceRule(rules []authorizationv1.ResourceRule, verb, group, resource string) bool {
	for _, r := range rules {
		if contains(r.Verbs, verb) && contains(r.APIGroups, group) && contains(r.Resources, resource) {
			return true
		}
	}
	return false
}

func TestRulesFor(t *testing.T) {
	src := mustPolicy(t)
	resolver := UnionRules(NodeRuleResolver(), RBACRuleResolver(src))
	ctx := context.Background()
	tests := []struct {
		name       string
		user       *User
		namespace  string
		has        [][3]string // verb, group, resource
		hasNot     [][3]string
		incomplete bool
		errSub     string
	}{
		{name: "student views, cannot write", user: user("student"), namespace: "default",
			has:    [][3]string{{"list", "", "pods"}, {"create", "authorization.k8s.io", "selfsubjectrulesreviews"}},
			hasNot: [][3]string{{"create", "", "pods"}, {"get", "", "secrets"}}},
		{name: "a RoleBinding counts in its namespace", user: user("alice"), namespace: "team-a",
			has: [][3]string{{"create", "apps", "deployments"}, {"get", "", "secrets"}}},
		{name: "and nowhere else", user: user("alice"), namespace: "team-b",
			hasNot: [][3]string{{"create", "apps", "deployments"}}},
		{name: "a missing role is an evaluation error", user: user("ghost"), namespace: "team-a",
			errSub: `clusterrole.rbac.authorization.k8s.io "does-not-exist" not found`},
		{name: "a kubelet's rules are incomplete", user: user(NodeUserPrefix+"node-a", GroupNodes), namespace: "default",
			incomplete: true, errSub: "node authorizer does not support user rule resolution"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := resolver.RulesFor(ctx, tt.user, tt.namespace)
			for _, h := range tt.has {
				if !hasResourceRule(set.Resource, h[0], h[1], h[2]) {
					t.Errorf("no rule allows %v; rules %v", h, set.Resource)
				}
			}
			for _, h := range tt.hasNot {
				if hasResourceRule(set.Resource, h[0], h[1], h[2]) {
					t.Errorf("a rule allows %v", h)
				}
			}
			if set.Incomplete != tt.incomplete {
				t.Errorf("incomplete = %v, want %v", set.Incomplete, tt.incomplete)
			}
			switch {
			case tt.errSub == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.errSub != "" && (err == nil || !strings.Contains(err.Error(), tt.errSub)):
				t.Errorf("err = %v, want one containing %q", err, tt.errSub)
			}
		})
	}
}

// TestRulesForAgreesWithAuthorize checks that every rule listed for a user
// allows, through the RBAC authorizer, a request it names.
func TestRulesForAgreesWithAuthorize(t *testing.T) {
	src := mustPolicy(t)
	z := NewRBACAuthorizer(src)
	u := user("alice")
	set, err := RBACRuleResolver(src).RulesFor(context.Background(), u, "team-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Resource) == 0 || len(set.NonResource) == 0 {
		t.Fatalf("want resource and non-resource rules, got %d and %d", len(set.Resource), len(set.NonResource))
	}
	for _, r := range set.Resource {
		res, sub, _ := strings.Cut(r.Resources[0], "/")
		a := resAttrs(u, r.Verbs[0], r.APIGroups[0], res, sub, "team-a", "")
		if res == "*" {
			continue
		}
		if got, _ := z.Authorize(context.Background(), a); got.Decision != DecisionAllow {
			t.Errorf("rule %v listed, but %s %s/%s is %v", r, a.Verb, a.APIGroup, r.Resources[0], got.Decision)
		}
	}
}
