package auth

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// staticRules is a RuleSource over fixed objects.
type staticRules struct {
	clusterRoles        []*rbacv1.ClusterRole
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	roles               []*rbacv1.Role
	roleBindings        []*rbacv1.RoleBinding
}

func (s *staticRules) GetClusterRole(name string) (*rbacv1.ClusterRole, bool) {
	for _, r := range s.clusterRoles {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

func (s *staticRules) GetRole(namespace, name string) (*rbacv1.Role, bool) {
	for _, r := range s.roles {
		if r.Namespace == namespace && r.Name == name {
			return r, true
		}
	}
	return nil, false
}

func (s *staticRules) ListClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return s.clusterRoleBindings
}

func (s *staticRules) ListRoleBindings(namespace string) []*rbacv1.RoleBinding {
	var out []*rbacv1.RoleBinding
	for _, b := range s.roleBindings {
		if b.Namespace == namespace {
			out = append(out, b)
		}
	}
	return out
}

// mustPolicy returns the bootstrap policy plus the extra objects the RBAC
// tests use.
func mustPolicy(tb testing.TB) *staticRules {
	tb.Helper()
	roles, bindings := BootstrapPolicy()
	s := &staticRules{clusterRoles: roles, clusterRoleBindings: bindings}
	s.clusterRoles = append(s.clusterRoles,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "web-reader"}, Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"get", "list", "update"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"web"}},
		}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "status-writer"}, Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"patch"}, APIGroups: []string{""}, Resources: []string{"pods/status"}},
			{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/status"}},
		}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"}, Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics", "/debug/*"}},
		}},
	)
	s.clusterRoleBindings = append(s.clusterRoleBindings,
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "metrics"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "prometheus"}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dangling"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "does-not-exist"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "ghost"}}},
	)
	s.roles = append(s.roles, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "lease-editor"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}},
	}})
	s.roleBindings = append(s.roleBindings,
		// A RoleBinding to a ClusterRole grants its rules in team-a only.
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "alice-edit"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "leases"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "lease-editor"},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "nobody"},
				{Kind: rbacv1.ServiceAccountKind, Name: "builder"}, // namespace defaults to team-a
			}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "ci-view"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "ci", Namespace: "ci-system"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "web-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "web-team"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "status"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "status-writer"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "statusbot"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "missing-role"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "gone"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "ghost"}}},
	)
	return s
}

func user(name string, groups ...string) *User {
	return &User{Name: name, Groups: append(groups, GroupAuthenticated)}
}

// resAttrs builds the attributes of a resource request.
func resAttrs(u *User, verb, group, resource, sub, ns, name string) Attributes {
	return Attributes{User: u, Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: "v1",
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func pathAttrs(u *User, verb, path string) Attributes {
	return Attributes{User: u, Verb: verb, Path: path}
}

func TestRBACAuthorizer(t *testing.T) {
	src := mustPolicy(t)
	rbac := NewRBACAuthorizer(src)

	admin := user("kubernetes-admin", GroupMasters)
	student := user("student")
	alice := user("alice")
	scheduler := user(SchedulerUser)
	kubelet := user("system:node:node-a", GroupNodes)
	builder := user("system:serviceaccount:team-a:builder", "system:serviceaccounts")
	otherBuilder := user("system:serviceaccount:team-b:builder", "system:serviceaccounts")
	ci := user("system:serviceaccount:ci-system:ci")
	webTeam := user("bob", "web-team")
	statusbot := user("statusbot")
	anonymous := AnonymousUser()

	tests := []struct {
		name       string
		attrs      Attributes
		want       Decision
		wantReason string
		wantRule   string
	}{
		// cluster-admin through system:masters.
		{name: "masters delete nodes", attrs: resAttrs(admin, "delete", "", "nodes", "", "", "node-b"), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`,
			wantRule:   `verbs=[*] apiGroups=["*"] resources=[*]`},
		{name: "masters finalize namespaces", attrs: resAttrs(admin, "update", "", "namespaces", "finalize", "x", "x"), want: DecisionAllow},
		{name: "masters any path", attrs: pathAttrs(admin, "get", "/metrics"), want: DecisionAllow,
			wantRule: `verbs=[*] nonResourceURLs=[*]`},

		// student through view.
		{name: "student get pods", attrs: resAttrs(student, "get", "", "pods", "", "default", "web"), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "kubesim:student-view" of ClusterRole "view" to User "student"`,
			wantRule: `verbs=[get list watch] apiGroups=[""] resources=[configmaps endpoints persistentvolumeclaims ` +
				`persistentvolumeclaims/status pods replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status]`},
		{name: "student list pods all namespaces", attrs: resAttrs(student, "list", "", "pods", "", "", ""), want: DecisionAllow},
		{name: "student watch pods", attrs: resAttrs(student, "watch", "", "pods", "", "default", ""), want: DecisionAllow},
		{name: "student get pod status", attrs: resAttrs(student, "get", "", "pods", "status", "default", "web"), want: DecisionAllow},
		{name: "student list events", attrs: resAttrs(student, "list", "", "events", "", "default", ""), want: DecisionAllow},
		{name: "student list namespaces", attrs: resAttrs(student, "list", "", "namespaces", "", "", ""), want: DecisionAllow},
		{name: "student create pods", attrs: resAttrs(student, "create", "", "pods", "", "default", ""), want: DecisionNoOpinion},
		{name: "student delete pods", attrs: resAttrs(student, "delete", "", "pods", "", "default", "web"), want: DecisionNoOpinion},
		{name: "student patch pod status", attrs: resAttrs(student, "patch", "", "pods", "status", "default", "web"), want: DecisionNoOpinion},
		{name: "student create binding", attrs: resAttrs(student, "create", "", "pods", "binding", "default", "web"), want: DecisionNoOpinion},
		{name: "student get secrets", attrs: resAttrs(student, "get", "", "secrets", "", "default", "s"), want: DecisionNoOpinion},
		{name: "student list nodes", attrs: resAttrs(student, "list", "", "nodes", "", "", ""), want: DecisionNoOpinion},
		{name: "student list leases", attrs: resAttrs(student, "list", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), want: DecisionNoOpinion},
		{name: "student list roles", attrs: resAttrs(student, "list", "rbac.authorization.k8s.io", "roles", "", "default", ""), want: DecisionNoOpinion},
		{name: "student self review", attrs: resAttrs(student, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"`},
		{name: "student discovery", attrs: pathAttrs(student, "get", "/apis/coordination.k8s.io/v1"), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`,
			wantRule:   `verbs=[get] nonResourceURLs=[/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/]`},
		{name: "student openapi", attrs: pathAttrs(student, "get", "/openapi/v3"), want: DecisionAllow},
		{name: "student post to discovery", attrs: pathAttrs(student, "post", "/api"), want: DecisionNoOpinion},
		{name: "student metrics", attrs: pathAttrs(student, "get", "/metrics"), want: DecisionNoOpinion},

		// Anonymous: only the public info.
		{name: "anonymous healthz", attrs: pathAttrs(anonymous, "get", "/healthz"), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"`},
		{name: "anonymous version slash", attrs: pathAttrs(anonymous, "get", "/version/"), want: DecisionAllow},
		{name: "anonymous readyz subpath", attrs: pathAttrs(anonymous, "get", "/readyz/etcd"), want: DecisionNoOpinion},
		{name: "anonymous discovery", attrs: pathAttrs(anonymous, "get", "/api"), want: DecisionNoOpinion},
		{name: "anonymous pods", attrs: resAttrs(anonymous, "list", "", "pods", "", "", ""), want: DecisionNoOpinion},

		// The scheduler.
		{name: "scheduler binds", attrs: resAttrs(scheduler, "create", "", "pods", "binding", "default", "web"), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"`,
			wantRule:   `verbs=[create] apiGroups=[""] resources=[bindings pods/binding]`},
		{name: "scheduler legacy bindings", attrs: resAttrs(scheduler, "create", "", "bindings", "", "default", ""), want: DecisionAllow},
		{name: "scheduler watches nodes", attrs: resAttrs(scheduler, "watch", "", "nodes", "", "", ""), want: DecisionAllow},
		{name: "scheduler deletes nodes", attrs: resAttrs(scheduler, "delete", "", "nodes", "", "", "node-b"), want: DecisionNoOpinion},
		{name: "scheduler its lease", attrs: resAttrs(scheduler, "update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler"), want: DecisionAllow,
			wantRule: `verbs=[get list update watch] apiGroups=["coordination.k8s.io"] resources=[leases] resourceNames=[kube-scheduler]`},
		{name: "scheduler other lease", attrs: resAttrs(scheduler, "update", "coordination.k8s.io", "leases", "", "kube-system", "other"), want: DecisionNoOpinion},

		// system:node is bound to nobody: kubelets get nothing from RBAC but the common roles.
		{name: "kubelet through RBAC", attrs: resAttrs(kubelet, "patch", "", "nodes", "status", "", "node-a"), want: DecisionNoOpinion},
		{name: "kubelet discovery", attrs: pathAttrs(kubelet, "get", "/api"), want: DecisionAllow},

		// A RoleBinding to a ClusterRole applies in its namespace only.
		{name: "alice edit in team-a", attrs: resAttrs(alice, "create", "", "pods", "", "team-a", ""), want: DecisionAllow,
			wantReason: `RBAC: allowed by RoleBinding "alice-edit/team-a" of ClusterRole "edit" to User "alice"`},
		{name: "alice reads in team-a via aggregated view", attrs: resAttrs(alice, "list", "", "pods", "", "team-a", ""), want: DecisionAllow},
		{name: "alice reads secrets in team-a", attrs: resAttrs(alice, "get", "", "secrets", "", "team-a", "s"), want: DecisionAllow},
		{name: "alice edit in default", attrs: resAttrs(alice, "create", "", "pods", "", "default", ""), want: DecisionNoOpinion},
		{name: "alice cluster-wide list", attrs: resAttrs(alice, "list", "", "pods", "", "", ""), want: DecisionNoOpinion},
		{name: "alice roles in team-a (admin only)", attrs: resAttrs(alice, "create", "rbac.authorization.k8s.io", "roles", "", "team-a", ""), want: DecisionNoOpinion},

		// ServiceAccount subjects.
		{name: "service account, namespace from binding", attrs: resAttrs(builder, "update", "coordination.k8s.io", "leases", "", "team-a", "x"), want: DecisionAllow,
			wantReason: `RBAC: allowed by RoleBinding "leases/team-a" of Role "lease-editor" to ServiceAccount "builder/team-a"`,
			wantRule:   `verbs=[*] apiGroups=["coordination.k8s.io"] resources=[leases]`},
		{name: "same name, other namespace", attrs: resAttrs(otherBuilder, "update", "coordination.k8s.io", "leases", "", "team-a", "x"), want: DecisionNoOpinion},
		{name: "service account from another namespace", attrs: resAttrs(ci, "list", "", "pods", "", "team-a", ""), want: DecisionAllow,
			wantReason: `RBAC: allowed by RoleBinding "ci-view/team-a" of ClusterRole "view" to ServiceAccount "ci/ci-system"`},
		{name: "service account subject is not a user name", attrs: resAttrs(user("builder"), "get", "coordination.k8s.io", "leases", "", "team-a", "x"), want: DecisionNoOpinion},

		// resourceNames.
		{name: "named pod", attrs: resAttrs(webTeam, "get", "", "pods", "", "team-a", "web"), want: DecisionAllow,
			wantRule: `verbs=[get list update] apiGroups=[""] resources=[pods] resourceNames=[web]`},
		{name: "other pod", attrs: resAttrs(webTeam, "get", "", "pods", "", "team-a", "db"), want: DecisionNoOpinion},
		{name: "list is not a named get", attrs: resAttrs(webTeam, "list", "", "pods", "", "team-a", ""), want: DecisionNoOpinion},
		{name: "list pinned by metadata.name", attrs: resAttrs(webTeam, "list", "", "pods", "", "team-a", "web"), want: DecisionAllow},

		// Subresources.
		{name: "pods/status rule, status request", attrs: resAttrs(statusbot, "patch", "", "pods", "status", "team-a", "web"), want: DecisionAllow,
			wantRule: `verbs=[patch] apiGroups=[""] resources=[pods/status]`},
		{name: "pods/status rule, pod request", attrs: resAttrs(statusbot, "patch", "", "pods", "", "team-a", "web"), want: DecisionNoOpinion},
		{name: "*/status rule", attrs: resAttrs(statusbot, "get", "", "nodes", "status", "team-a", "n"), want: DecisionAllow,
			wantRule: `verbs=[get] apiGroups=["*"] resources=[*/status]`},
		{name: "*/status rule, other subresource", attrs: resAttrs(statusbot, "get", "", "pods", "binding", "team-a", "web"), want: DecisionNoOpinion},
		{name: "pods rule does not cover pods/status", attrs: resAttrs(webTeam, "update", "", "pods", "status", "team-a", "web"), want: DecisionNoOpinion},

		// nonResourceURLs with a trailing *.
		{name: "exact url", attrs: pathAttrs(user("prometheus"), "get", "/metrics"), want: DecisionAllow,
			wantReason: `RBAC: allowed by ClusterRoleBinding "metrics" of ClusterRole "metrics-reader" to User "prometheus"`},
		{name: "prefix url", attrs: pathAttrs(user("prometheus"), "get", "/debug/pprof/heap"), want: DecisionAllow},
		{name: "prefix itself", attrs: pathAttrs(user("prometheus"), "get", "/debug/"), want: DecisionAllow},
		{name: "prefix without slash", attrs: pathAttrs(user("prometheus"), "get", "/debug"), want: DecisionNoOpinion},
		{name: "url with other verb", attrs: pathAttrs(user("prometheus"), "post", "/metrics"), want: DecisionNoOpinion},

		// Bindings to missing roles explain themselves.
		{name: "missing cluster role", attrs: resAttrs(user("ghost"), "get", "", "pods", "", "", "x"), want: DecisionNoOpinion,
			wantReason: `RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found`},
		{name: "missing cluster role and role", attrs: resAttrs(user("ghost"), "get", "", "pods", "", "team-a", "x"), want: DecisionNoOpinion,
			wantReason: `RBAC: [clusterrole.rbac.authorization.k8s.io "does-not-exist" not found, role.rbac.authorization.k8s.io "gone" not found]`},

		{name: "nil user", attrs: resAttrs(nil, "get", "", "pods", "", "default", "x"), want: DecisionNoOpinion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rbac.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if got.Decision != tt.want {
				t.Fatalf("decision = %v (reason %q), want %v", got.Decision, got.Reason, tt.want)
			}
			if got.Authorizer != AuthorizerRBAC {
				t.Errorf("authorizer = %q, want %q", got.Authorizer, AuthorizerRBAC)
			}
			if tt.wantReason != "" && got.Reason != tt.wantReason {
				t.Errorf("reason:\ngot  %s\nwant %s", got.Reason, tt.wantReason)
			}
			if tt.want != DecisionAllow && tt.wantReason == "" && got.Reason != "" {
				t.Errorf("reason = %q, want none", got.Reason)
			}
			if tt.wantRule != "" && got.Rule != tt.wantRule {
				t.Errorf("rule:\ngot  %s\nwant %s", got.Rule, tt.wantRule)
			}
			if (got.Rule != "") != (tt.want == DecisionAllow) {
				t.Errorf("rule = %q; want a rule exactly when allowed", got.Rule)
			}
		})
	}
}

func TestStudentDeniedThroughChain(t *testing.T) {
	authz := Chain(NewNodeAuthorizer(), NewRBACAuthorizer(mustPolicy(t)))
	tests := []struct {
		name    string
		attrs   Attributes
		want    string
		allowed bool
	}{
		{name: "student creates a pod",
			attrs: resAttrs(user("student"), "create", "", "pods", "", "default", ""),
			want:  `pods is forbidden: User "student" cannot create resource "pods" in API group "" in the namespace "default"`},
		{name: "scheduler deletes a node",
			attrs: resAttrs(user(SchedulerUser), "delete", "", "nodes", "", "", "node-b"),
			want:  `nodes "node-b" is forbidden: User "system:kube-scheduler" cannot delete resource "nodes" in API group "" at the cluster scope`},
		{name: "kubelet reads another node",
			attrs: resAttrs(user("system:node:node-a", GroupNodes), "get", "", "nodes", "", "", "node-b"),
			want:  `nodes "node-b" is forbidden: User "system:node:node-a" cannot get resource "nodes" in API group "" at the cluster scope: node: node 'node-a' cannot read 'node-b', only its own Node object`},
		{name: "student gets a pod", attrs: resAttrs(user("student"), "get", "", "pods", "", "default", "web"), allowed: true},
		{name: "kubelet patches its status", attrs: resAttrs(user("system:node:node-a", GroupNodes), "patch", "", "nodes", "status", "", "node-a"), allowed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := authz.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if tt.allowed {
				if res.Decision != DecisionAllow {
					t.Errorf("decision = %v (reason %q), want Allow", res.Decision, res.Reason)
				}
				return
			}
			if res.Decision != DecisionDeny {
				t.Fatalf("decision = %v, want Deny", res.Decision)
			}
			if got := Forbidden(tt.attrs, res.Reason).Status().Message; got != tt.want {
				t.Errorf("403 message:\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDescribeRule(t *testing.T) {
	tests := []struct {
		rule rbacv1.PolicyRule
		want string
	}{
		{rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods"}},
			`verbs=[get list watch] apiGroups=[""] resources=[pods]`},
		{rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}},
			`verbs=[create] apiGroups=["" "events.k8s.io"] resources=[events]`},
		{rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"a", "b"}},
			`verbs=[get] apiGroups=["coordination.k8s.io"] resources=[leases] resourceNames=[a b]`},
		{rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/api/*"}},
			`verbs=[get] nonResourceURLs=[/healthz /api/*]`},
	}
	for _, tt := range tests {
		if got := DescribeRule(tt.rule); got != tt.want {
			t.Errorf("DescribeRule(%+v) = %s, want %s", tt.rule, got, tt.want)
		}
	}
}
