package controllers_test

import (
	"context"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// canI asks the API server whether the client's user may verb
// group/resource in default (kubectl auth can-i).
func canI(t *testing.T, client kubernetes.Interface, verb, group, resource string) bool {
	t.Helper()
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: verb, Group: group, Resource: resource}}}
	out, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), review, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.Status.Allowed
}

func hasRuleFor(role *rbacv1.ClusterRole, group, resource string) bool {
	return slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource)
	})
}

// TestClusterRoleAggregation: a ClusterRole labelled
// rbac.authorization.k8s.io/aggregate-to-view=true adds its rules to
// view, and through view to edit and admin; the student, bound to view,
// may then list what it grants. Its label removed, the rules go again.
func TestClusterRoleAggregation(t *testing.T) {
	c, admin := startCluster(t)
	rc, err := c.RESTConfigAs("student")
	if err != nil {
		t.Fatal(err)
	}
	student := kubernetes.NewForConfigOrDie(rc)
	ctx := context.Background()
	roles := admin.RbacV1().ClusterRoles()
	if canI(t, student, "list", "example.com", "widgets") {
		t.Fatal("student may list widgets before any role grants it")
	}
	if !canI(t, student, "list", "", "pods") {
		t.Fatal("student (view) may not list pods: view is not filled")
	}
	widgets := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-reader", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get", "list", "watch"}}},
	}
	created, err := roles.Create(ctx, widgets, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"view", "edit", "admin"} {
		waitFor(t, name+" aggregates widget-reader", func(ctx context.Context) (bool, error) {
			r, err := roles.Get(ctx, name, metav1.GetOptions{})
			return err == nil && hasRuleFor(r, "example.com", "widgets"), err
		})
	}
	waitFor(t, "student may list widgets", func(context.Context) (bool, error) {
		return canI(t, student, "list", "example.com", "widgets"), nil
	})

	created.Labels = nil
	if _, err := roles.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "view without widget-reader's rules", func(ctx context.Context) (bool, error) {
		r, err := roles.Get(ctx, "view", metav1.GetOptions{})
		return err == nil && !hasRuleFor(r, "example.com", "widgets") && hasRuleFor(r, "", "pods"), err
	})
	waitFor(t, "student may no longer list widgets", func(context.Context) (bool, error) {
		return !canI(t, student, "list", "example.com", "widgets"), nil
	})
}
