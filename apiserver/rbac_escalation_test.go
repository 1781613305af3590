package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestRBACEscalationPrevention: a user may create or change a role only
// with rules it holds (or with "escalate" on it), and bind a role only if
// it holds its rules (or may "bind" it); otherwise 403 with
// kube-apiserver's message listing what it lacks. Every expected answer
// below is what the real kube-apiserver v1.37.2 answered to the same
// requests (kubectl --as against ../shared/peer).
func TestRBACEscalationPrevention(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client
	ctx := context.Background()

	// me may create ClusterRoleBindings, nothing else.
	mustRBAC(t, admin, clusterRole("crb-maker", rule("rbac.authorization.k8s.io", "clusterrolebindings", "create")))
	mustRBAC(t, admin, clusterBinding("me-crb-maker", "crb-maker", "me"))
	me := ts.as(t, "me")
	waitCanI(t, me, "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "")

	_, err := me.RbacV1().ClusterRoleBindings().Create(ctx, clusterBinding("x", "cluster-admin", "me"), metav1.CreateOptions{})
	wantStatus(t, "me binds cluster-admin", err, http.StatusForbidden, `clusterrolebindings.rbac.authorization.k8s.io "x" is forbidden: user "me" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["*"], Resources:["*"], Verbs:["*"]}
{NonResourceURLs:["*"], Verbs:["*"]}`)
	_, err = me.RbacV1().ClusterRoleBindings().Create(ctx, clusterBinding("y", "nope", "me"), metav1.CreateOptions{})
	wantStatus(t, "me binds a missing role", err, http.StatusNotFound, `clusterrolebindings.rbac.authorization.k8s.io "nope" not found`)

	// With "bind" on cluster-admin, the same binding is made.
	mustRBAC(t, admin, clusterRole("binder", withNames(rule("rbac.authorization.k8s.io", "clusterroles", "bind"), "cluster-admin")))
	mustRBAC(t, admin, clusterBinding("me-binder", "binder", "me"))
	waitCanI(t, me, "bind", "rbac.authorization.k8s.io", "clusterroles", "", "cluster-admin")
	if _, err := me.RbacV1().ClusterRoleBindings().Create(ctx, clusterBinding("x", "cluster-admin", "me"), metav1.CreateOptions{}); err != nil {
		t.Errorf("me binds cluster-admin with bind on it: %v", err)
	}

	// you may create and change Roles and RoleBindings in default.
	mustRBAC(t, admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "role-maker", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{rule("rbac.authorization.k8s.io", "roles", "create", "update", "get", "patch"),
			rule("rbac.authorization.k8s.io", "rolebindings", "create", "update", "get", "patch")}})
	mustRBAC(t, admin, roleBinding("you-role-maker", "Role", "role-maker", "you"))
	you := ts.as(t, "you")
	waitCanI(t, you, "create", "rbac.authorization.k8s.io", "rolebindings", "default", "")

	secretsReader := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "secrets-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list"}}}}
	_, err = you.RbacV1().Roles("default").Create(ctx, secretsReader, metav1.CreateOptions{})
	wantStatus(t, "you writes a role reading secrets", err, http.StatusForbidden, `roles.rbac.authorization.k8s.io "secrets-reader" is forbidden: user "you" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`)
	_, err = you.RbacV1().RoleBindings("default").Create(ctx, roleBinding("rb1", "ClusterRole", "nope", "you"), metav1.CreateOptions{})
	wantStatus(t, "you binds a missing ClusterRole", err, http.StatusNotFound, `rolebindings.rbac.authorization.k8s.io "nope" not found`)
	_, err = you.RbacV1().RoleBindings("default").Create(ctx, roleBinding("rb1", "Role", "nope", "you"), metav1.CreateOptions{})
	wantStatus(t, "you binds a missing Role", err, http.StatusNotFound, `rolebindings.rbac.authorization.k8s.io "nope" not found`)
	if _, err := you.RbacV1().RoleBindings("default").Create(ctx, roleBinding("rb2", "Role", "role-maker", "them"), metav1.CreateOptions{}); err != nil {
		t.Errorf("you binds a role whose rules it holds: %v", err)
	}
	_, err = you.RbacV1().RoleBindings("default").Create(ctx, roleBinding("rb3", "ClusterRole", "crb-maker", "them"), metav1.CreateOptions{})
	wantStatus(t, "you binds a role it does not hold", err, http.StatusForbidden, `rolebindings.rbac.authorization.k8s.io "rb3" is forbidden: user "you" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["rbac.authorization.k8s.io"], Resources:["clusterrolebindings"], Verbs:["create"]}`)

	// With "escalate" on roles, any rules.
	mustRBAC(t, admin, clusterRole("esc", rule("rbac.authorization.k8s.io", "roles", "escalate", "create", "update")))
	mustRBAC(t, admin, roleBinding("you-esc", "ClusterRole", "esc", "you"))
	waitCanI(t, you, "escalate", "rbac.authorization.k8s.io", "roles", "default", "")
	if _, err := you.RbacV1().Roles("default").Create(ctx, secretsReader, metav1.CreateOptions{}); err != nil {
		t.Errorf("you writes a role reading secrets with escalate: %v", err)
	}
}

// TestRBACEscalationUpdates: updates are checked as creates, with the
// writer's unresolvable bindings listed; an aggregationRule needs every
// permission; a change of finalizers alone is always allowed.
func TestRBACEscalationUpdates(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client
	ctx := context.Background()
	mustRBAC(t, admin, clusterRole("cr-maker", rule("rbac.authorization.k8s.io", "clusterroles", "create", "update", "patch", "get")))
	mustRBAC(t, admin, clusterBinding("z-cr-maker", "cr-maker", "z"))
	mustRBAC(t, admin, roleBinding("z-ghost", "Role", "ghost", "z"))
	mustRBAC(t, admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "z-roles", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{rule("rbac.authorization.k8s.io", "roles", "create", "update", "patch", "get")}})
	mustRBAC(t, admin, roleBinding("z-roles", "Role", "z-roles", "z"))
	mustRBAC(t, admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{rule("", "secrets", "*")}})
	z := ts.as(t, "z")
	waitCanI(t, z, "patch", "rbac.authorization.k8s.io", "roles", "default", "")

	const unresolved = `; resolution errors: [roles.rbac.authorization.k8s.io "ghost" not found]`
	_, err := z.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r1"},
		Rules: []rbacv1.PolicyRule{rule("", "pods", "get")}}, metav1.CreateOptions{})
	wantStatus(t, "create with an unresolvable binding", err, http.StatusForbidden, `roles.rbac.authorization.k8s.io "r1" is forbidden: user "z" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`+unresolved)

	agg := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aggy2"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}}
	_, err = z.RbacV1().ClusterRoles().Create(ctx, agg, metav1.CreateOptions{})
	wantStatus(t, "an aggregationRule", err, http.StatusForbidden, `clusterroles.rbac.authorization.k8s.io "aggy2" is forbidden: must have cluster-admin privileges to use the aggregationRule`)
	if _, err := z.RbacV1().ClusterRoles().Create(ctx, clusterRole("plain", rule("rbac.authorization.k8s.io", "clusterroles", "get")), metav1.CreateOptions{}); err != nil {
		t.Errorf("a ClusterRole with rules z holds: %v", err)
	}

	patch := func(name, body string, pt types.PatchType) error {
		_, err := z.RbacV1().Roles("default").Patch(ctx, name, pt, []byte(body), metav1.PatchOptions{})
		return err
	}
	if err := patch("big", `{"metadata":{"finalizers":["example.com/keep"]}}`, types.MergePatchType); err != nil {
		t.Errorf("finalizers only: %v", err)
	}
	err = patch("big", `{"metadata":{"labels":{"a":"b"}}}`, types.MergePatchType)
	wantStatus(t, "a label on a role z does not hold", err, http.StatusForbidden, `roles.rbac.authorization.k8s.io "big" is forbidden: user "z" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`+unresolved)
	err = patch("z-roles", `[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}}]`, types.JSONPatchType)
	wantStatus(t, "a rule added to z's own role", err, http.StatusForbidden, `roles.rbac.authorization.k8s.io "z-roles" is forbidden: user "z" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`+unresolved)
}

// as returns a client that acts as user (impersonated by admin).
func (ts *testServer) as(tb testing.TB, user string) kubernetes.Interface {
	tb.Helper()
	cfg := ts.restConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	return kubernetes.NewForConfigOrDie(cfg)
}

// waitCanI waits until the server lets c's user do verb on the resource
// (the RBAC objects just written reach the authorizer through a watch).
func waitCanI(tb testing.TB, c kubernetes.Interface, verb, group, resource, namespace, name string) {
	tb.Helper()
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: namespace, Name: name}}}
	waitFor(tb, waitTimeout, fmt.Sprintf("can-i %s %s/%s %q", verb, group, resource, name), func() bool {
		r, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), review, metav1.CreateOptions{})
		return err == nil && r.Status.Allowed
	})
}

// wantStatus checks that err is an API error with code and message
// ("": any).
func wantStatus(tb testing.TB, what string, err error, code int32, message string) {
	tb.Helper()
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		tb.Errorf("%s: error %v, want %d %q", what, err, code, message)
		return
	}
	if got := st.Status(); got.Code != code || (message != "" && got.Message != message) {
		tb.Errorf("%s: %d %q, want %d %q", what, got.Code, got.Message, code, message)
	}
}

// mustRBAC creates an RBAC object as admin.
func mustRBAC(tb testing.TB, admin kubernetes.Interface, obj any) {
	tb.Helper()
	ctx := context.Background()
	var err error
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		_, err = admin.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.ClusterRoleBinding:
		_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.Role:
		_, err = admin.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.RoleBinding:
		_, err = admin.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	default:
		err = fmt.Errorf("not an RBAC object: %T", obj)
	}
	if err != nil {
		tb.Fatalf("create %T: %v", obj, err)
	}
}

func rule(group, resource string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
}

func withNames(r rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
	r.ResourceNames = names
	return r
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func subjects(user string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
}

func clusterBinding(name, role, user string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects(user),
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
}

// roleBinding is a RoleBinding in default of the role (kind Role or
// ClusterRole) to user.
func roleBinding(name, kind, role, user string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Subjects: subjects(user),
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role}}
}

// TestRBACEscalationTraced: the request's trace shows that the
// authorizer allowed the create and the RBAC storage refused it, after
// which nothing was stored.
func TestRBACEscalationTraced(t *testing.T) {
	t.Parallel()
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	mustRBAC(t, ts.client, clusterRole("crb-maker", rule("rbac.authorization.k8s.io", "clusterrolebindings", "create")))
	mustRBAC(t, ts.client, clusterBinding("me-crb-maker", "crb-maker", "me"))
	me := ts.as(t, "me")
	waitCanI(t, me, "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "")
	_, err := me.RbacV1().ClusterRoleBindings().Create(context.Background(), clusterBinding("x", "cluster-admin", "me"), metav1.CreateOptions{})
	wantStatus(t, "me binds cluster-admin", err, http.StatusForbidden, "")
	tr := waitTrace(t, sub, func(r *flow.RequestTrace) bool { return r.Method == "POST" && r.Code == http.StatusForbidden })
	if got, want := stepNames(tr.Steps), "authorized aggregator kube-apiserver dispatched decoded admission admission admission admission admission admission admission escalation responded"; !strings.HasSuffix(got, want) {
		t.Errorf("steps = %s\nwant them to end with %s", got, want)
	}
	for _, s := range tr.Steps {
		if s.Name == "escalation" && (s.Outcome != "denied" || !strings.Contains(s.Detail, "is attempting to grant RBAC permissions not currently held")) {
			t.Errorf("escalation step %s: %s", s.Outcome, s.Detail)
		}
	}
}

// waitTrace returns the first request trace from sub that match accepts.
func waitTrace(tb testing.TB, sub *flow.Subscription, match func(*flow.RequestTrace) bool) *flow.RequestTrace {
	tb.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case e := <-sub.Events():
			if e.Request != nil && match(e.Request) {
				return e.Request
			}
		case <-deadline:
			tb.Fatal("no such request trace")
		}
	}
}
