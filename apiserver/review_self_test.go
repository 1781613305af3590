package apiserver_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestSelfSubjectReview checks kubectl auth whoami's request: the caller's
// user and groups as authentication (or impersonation) left them.
func TestSelfSubjectReview(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	tests := []struct {
		name, token, as string
		wantUser        string
		wantGroups      []string
	}{
		{name: "admin", token: adminToken, wantUser: "admin", wantGroups: []string{"system:masters", "system:authenticated"}},
		{name: "student", token: studentToken, wantUser: "student", wantGroups: []string{"system:authenticated"}},
		{name: "admin as student", token: adminToken, as: "student", wantUser: "student", wantGroups: []string{"system:authenticated"}},
		{name: "admin as a service account", token: adminToken, as: "system:serviceaccount:kube-system:deployment-controller",
			wantUser:   "system:serviceaccount:kube-system:deployment-controller",
			wantGroups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ts.restConfigAs(tt.token)
			cfg.Impersonate = rest.ImpersonationConfig{UserName: tt.as}
			c := kubernetes.NewForConfigOrDie(cfg)
			got, err := c.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if u := got.Status.UserInfo; u.Username != tt.wantUser || !slices.Equal(u.Groups, tt.wantGroups) {
				t.Errorf("user %q groups %v, want %q %v", u.Username, u.Groups, tt.wantUser, tt.wantGroups)
			}
			if got.CreationTimestamp.IsZero() {
				t.Error("no creationTimestamp")
			}
		})
	}
}

// TestSelfSubjectRulesReview checks kubectl auth can-i --list's request.
func TestSelfSubjectRulesReview(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	review := func(token, as, namespace string) (*authorizationv1.SelfSubjectRulesReview, error) {
		cfg := ts.restConfigAs(token)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: as}
		return kubernetes.NewForConfigOrDie(cfg).AuthorizationV1().SelfSubjectRulesReviews().Create(ctx,
			&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: namespace}}, metav1.CreateOptions{})
	}
	allows := func(rules []authorizationv1.ResourceRule, verb, group, resource string) bool {
		for _, r := range rules {
			if slices.Contains(r.Verbs, verb) && slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct{ name, token, as string }{{"student", studentToken, ""}, {"admin as student", adminToken, "student"}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := review(tc.token, tc.as, "default")
			if err != nil {
				t.Fatal(err)
			}
			if !allows(got.Status.ResourceRules, "list", "", "pods") || allows(got.Status.ResourceRules, "create", "", "pods") {
				t.Errorf("student's rules should allow listing pods and not creating them: %v", got.Status.ResourceRules)
			}
			if got.Status.Incomplete || got.Status.EvaluationError != "" {
				t.Errorf("incomplete %v, evaluationError %q", got.Status.Incomplete, got.Status.EvaluationError)
			}
		})
	}
	t.Run("admin", func(t *testing.T) {
		got, err := review(adminToken, "", "default")
		if err != nil {
			t.Fatal(err)
		}
		if !allows(got.Status.ResourceRules, "*", "*", "*") {
			t.Errorf("admin's rules lack cluster-admin's: %v", got.Status.ResourceRules)
		}
	})
	t.Run("a kubelet", func(t *testing.T) {
		got, err := review(nodeAToken, "", "default")
		if err != nil {
			t.Fatal(err)
		}
		if !got.Status.Incomplete || !strings.Contains(got.Status.EvaluationError, "node authorizer does not support user rule resolution") {
			t.Errorf("incomplete %v, evaluationError %q", got.Status.Incomplete, got.Status.EvaluationError)
		}
	})
	t.Run("no namespace", func(t *testing.T) {
		code, body := ts.do(t, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "application/json",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}`)
		if code != http.StatusBadRequest || !strings.Contains(body, "no namespace on request") {
			t.Errorf("got %d %s, want 400 no namespace on request", code, body)
		}
	})
}
