package auth

import (
	"reflect"
	"sort"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestBootstrapPolicyObjects(t *testing.T) {
	roles, bindings := BootstrapPolicy()

	var roleNames []string
	for _, r := range roles {
		roleNames = append(roleNames, r.Name)
		if r.Labels[BootstrapLabel] != BootstrapLabelValue {
			t.Errorf("ClusterRole %s: label %s = %q, want %q", r.Name, BootstrapLabel, r.Labels[BootstrapLabel], BootstrapLabelValue)
		}
		if r.Annotations[AutoupdateAnnotation] != "true" {
			t.Errorf("ClusterRole %s: annotation %s = %q, want \"true\"", r.Name, AutoupdateAnnotation, r.Annotations[AutoupdateAnnotation])
		}
		if len(r.Rules) == 0 {
			t.Errorf("ClusterRole %s has no rules", r.Name)
		}
	}
	sort.Strings(roleNames)
	wantRoles := []string{"admin", "cluster-admin", "edit", "system:aggregate-to-admin", "system:aggregate-to-edit",
		"system:aggregate-to-view", "system:auth-delegator", "system:basic-user", "system:discovery", "system:kube-scheduler", "system:volume-scheduler", "system:node",
		"system:public-info-viewer", "view", ControllerManagerUser, "system:monitoring"}
	for name := range controllerRoles() {
		wantRoles = append(wantRoles, ControllerRolePrefix+name)
	}
	sort.Strings(wantRoles)
	if !reflect.DeepEqual(roleNames, wantRoles) {
		t.Errorf("ClusterRoles:\ngot  %v\nwant %v", roleNames, wantRoles)
	}

	type binding struct {
		role     string
		subjects []rbacv1.Subject
		upstream bool
	}
	group := func(n string) rbacv1.Subject {
		return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "Group", Name: n}
	}
	usr := func(n string) rbacv1.Subject {
		return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: "User", Name: n}
	}
	wantBindings := map[string]binding{
		"cluster-admin":             {"cluster-admin", []rbacv1.Subject{group("system:masters")}, true},
		"system:kube-scheduler":     {"system:kube-scheduler", []rbacv1.Subject{usr("system:kube-scheduler")}, true},
		"system:volume-scheduler":   {"system:volume-scheduler", []rbacv1.Subject{usr("system:kube-scheduler")}, true},
		"system:node":               {"system:node", nil, true},
		"system:public-info-viewer": {"system:public-info-viewer", []rbacv1.Subject{group("system:authenticated"), group("system:unauthenticated")}, true},
		"system:discovery":          {"system:discovery", []rbacv1.Subject{group("system:authenticated")}, true},
		"system:basic-user":         {"system:basic-user", []rbacv1.Subject{group("system:authenticated")}, true},
		"system:monitoring":         {"system:monitoring", []rbacv1.Subject{group("system:monitoring")}, true},
		"kubesim:student-view":      {"view", []rbacv1.Subject{usr("student")}, false},
		ControllerManagerUser:       {ControllerManagerUser, []rbacv1.Subject{usr(ControllerManagerUser)}, true},
	}
	for name := range controllerRoles() {
		sa := rbacv1.Subject{Kind: "ServiceAccount", Name: name, Namespace: "kube-system"}
		wantBindings[ControllerRolePrefix+name] = binding{ControllerRolePrefix + name, []rbacv1.Subject{sa}, true}
	}
	if len(bindings) != len(wantBindings) {
		t.Errorf("got %d ClusterRoleBindings, want %d", len(bindings), len(wantBindings))
	}
	for _, b := range bindings {
		want, ok := wantBindings[b.Name]
		if !ok {
			t.Errorf("unexpected ClusterRoleBinding %s", b.Name)
			continue
		}
		wantRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: want.role}
		if b.RoleRef != wantRef {
			t.Errorf("%s: roleRef = %+v, want %+v", b.Name, b.RoleRef, wantRef)
		}
		if !reflect.DeepEqual(b.Subjects, want.subjects) {
			t.Errorf("%s: subjects = %+v, want %+v", b.Name, b.Subjects, want.subjects)
		}
		if got := b.Labels[BootstrapLabel] == BootstrapLabelValue && b.Annotations[AutoupdateAnnotation] == "true"; got != want.upstream {
			t.Errorf("%s: bootstrap label and annotation present = %v, want %v", b.Name, got, want.upstream)
		}
		if _, ok := findRoleIn(roles, b.RoleRef.Name); !ok {
			t.Errorf("%s refers to missing ClusterRole %s", b.Name, b.RoleRef.Name)
		}
	}
}

func findRoleIn(roles []*rbacv1.ClusterRole, name string) (*rbacv1.ClusterRole, bool) {
	r := findRole(roles, name)
	return r, r != nil
}

func TestBootstrapPolicyAggregation(t *testing.T) {
	roles, _ := BootstrapPolicy()
	get := func(name string) *rbacv1.ClusterRole {
		r, ok := findRoleIn(roles, name)
		if !ok {
			t.Fatalf("no ClusterRole %s", name)
		}
		return r
	}
	concat := func(lists ...[]rbacv1.PolicyRule) []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	// What kube-controller-manager's aggregation would write: source roles
	// by name, rules in order (none of these repeat).
	tests := []struct {
		role      string
		label     string
		wantRules []rbacv1.PolicyRule
	}{
		{"view", "rbac.authorization.k8s.io/aggregate-to-view", viewRules()},
		{"edit", "rbac.authorization.k8s.io/aggregate-to-edit", concat(editRules(), viewRules())},
		{"admin", "rbac.authorization.k8s.io/aggregate-to-admin", concat(editRules(), viewRules(), adminRules())},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			r := get(tt.role)
			if r.AggregationRule == nil || len(r.AggregationRule.ClusterRoleSelectors) != 1 ||
				r.AggregationRule.ClusterRoleSelectors[0].MatchLabels[tt.label] != "true" {
				t.Errorf("aggregationRule = %+v, want one selector on %s=true", r.AggregationRule, tt.label)
			}
			if !reflect.DeepEqual(r.Rules, tt.wantRules) {
				t.Errorf("rules:\ngot  %v\nwant %v", r.Rules, tt.wantRules)
			}
		})
	}
	if get("edit").Labels[aggregateToAdmin] != "true" || get("view").Labels[aggregateToEdit] != "true" {
		t.Errorf("edit must aggregate into admin and view into edit")
	}
}

func TestBootstrapPolicyGrants(t *testing.T) {
	roles, _ := BootstrapPolicy()
	allows := func(role string, a Attributes) bool {
		r := findRole(roles, role)
		_, ok := firstAllowing(a, r.Rules)
		return ok
	}
	res := func(verb, group, resource, sub string) Attributes {
		return Attributes{Verb: verb, ResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Namespace: "default"}
	}
	get := func(path string) Attributes { return Attributes{Verb: "get", Path: path} }
	const (
		core  = ""
		coord = "coordination.k8s.io"
		rbac  = "rbac.authorization.k8s.io"
		authz = "authorization.k8s.io"
	)
	tests := []struct {
		role  string
		attrs Attributes
		want  bool
	}{
		{"cluster-admin", res("deletecollection", "anything.example.com", "widgets", "status"), true},
		{"cluster-admin", get("/any/path"), true},

		{"view", res("get", core, "pods", ""), true},
		{"view", res("watch", core, "pods", "status"), true},
		{"view", res("list", core, "events", ""), true},
		{"view", res("list", "events.k8s.io", "events", ""), true},
		{"view", res("get", core, "namespaces", ""), true},
		{"view", res("get", core, "namespaces", "status"), true},
		{"view", res("list", core, "bindings", ""), true},
		{"view", res("get", core, "secrets", ""), false},
		{"view", res("create", core, "pods", ""), false},
		{"view", res("update", core, "pods", "status"), false},
		{"view", res("create", core, "pods", "binding"), false},
		{"view", res("delete", core, "events", ""), false},
		{"view", res("get", coord, "leases", ""), false},
		{"view", res("get", rbac, "roles", ""), false},
		{"view", res("get", core, "nodes", ""), false},

		{"edit", res("create", core, "pods", ""), true},
		{"edit", res("deletecollection", core, "pods", ""), true},
		{"edit", res("get", core, "secrets", ""), true},
		{"edit", res("create", core, "events", ""), true},
		{"edit", res("update", coord, "leases", ""), true},
		{"edit", res("list", core, "pods", ""), true},
		{"edit", res("update", core, "pods", "status"), false},
		{"edit", res("create", core, "pods", "binding"), false},
		{"edit", res("create", rbac, "rolebindings", ""), false},
		{"edit", res("delete", core, "namespaces", ""), false},

		{"admin", res("create", rbac, "rolebindings", ""), true},
		{"admin", res("delete", rbac, "roles", ""), true},
		{"admin", res("create", authz, "localsubjectaccessreviews", ""), true},
		{"admin", res("create", core, "pods", ""), true},
		{"admin", res("get", core, "pods", ""), true},
		{"admin", res("create", rbac, "clusterroles", ""), false},
		{"admin", res("update", core, "namespaces", "finalize"), false},

		{"system:kube-scheduler", res("create", core, "pods", "binding"), true},
		{"system:kube-scheduler", res("create", core, "bindings", ""), true},
		{"system:kube-scheduler", res("patch", core, "pods", "status"), true},
		{"system:kube-scheduler", res("delete", core, "pods", ""), true},
		{"system:kube-scheduler", res("watch", core, "nodes", ""), true},
		{"system:kube-scheduler", res("list", core, "namespaces", ""), true},
		{"system:kube-scheduler", res("create", core, "events", ""), true},
		{"system:kube-scheduler", res("create", coord, "leases", ""), true},
		{"system:kube-scheduler", res("delete", core, "nodes", ""), false},
		{"system:kube-scheduler", res("create", core, "pods", ""), false},

		{"system:node", res("patch", core, "nodes", "status"), true},
		{"system:node", res("update", core, "pods", "status"), true},
		{"system:node", res("update", coord, "leases", ""), true},
		{"system:node", res("create", core, "pods", "binding"), false},
		{"system:node", res("delete", core, "namespaces", ""), false},

		{"system:basic-user", res("create", authz, "selfsubjectaccessreviews", ""), true},
		{"system:basic-user", res("create", authz, "selfsubjectrulesreviews", ""), true},
		{"system:basic-user", res("create", authz, "subjectaccessreviews", ""), false},

		{"system:auth-delegator", res("create", "authentication.k8s.io", "tokenreviews", ""), true},
		{"system:auth-delegator", res("create", authz, "subjectaccessreviews", ""), true},
		{"system:auth-delegator", res("create", authz, "localsubjectaccessreviews", ""), false},
		{"system:auth-delegator", res("get", authz, "subjectaccessreviews", ""), false},

		{"system:public-info-viewer", get("/healthz"), true},
		{"system:public-info-viewer", get("/livez"), true},
		{"system:public-info-viewer", get("/readyz"), true},
		{"system:public-info-viewer", get("/version"), true},
		{"system:public-info-viewer", get("/version/"), true},
		{"system:public-info-viewer", get("/readyz/etcd"), false},
		{"system:public-info-viewer", get("/api"), false},
		{"system:public-info-viewer", Attributes{Verb: "post", Path: "/healthz"}, false},

		{"system:discovery", get("/api"), true},
		{"system:discovery", get("/api/v1"), true},
		{"system:discovery", get("/apis"), true},
		{"system:discovery", get("/apis/coordination.k8s.io/v1"), true},
		{"system:discovery", get("/openapi/v3/api/v1"), true},
		{"system:discovery", get("/openapi"), true},
		{"system:discovery", get("/version/"), true},
		{"system:discovery", get("/healthz"), true},
		{"system:discovery", get("/metrics"), false},
	}
	for _, tt := range tests {
		a := tt.attrs
		what := a.Verb + " " + a.Path
		if a.ResourceRequest {
			what = a.Verb + " " + a.APIGroup + "/" + a.Resource
			if a.Subresource != "" {
				what += "/" + a.Subresource
			}
		}
		if got := allows(tt.role, a); got != tt.want {
			t.Errorf("%s allows %s = %v, want %v", tt.role, what, got, tt.want)
		}
	}
}

func TestBootstrapPolicyIsFresh(t *testing.T) {
	roles, bindings := BootstrapPolicy()
	roles[0].Rules[0].Verbs[0] = "changed"
	bindings[0].Subjects[0].Name = "changed"
	roles2, bindings2 := BootstrapPolicy()
	if roles2[0].Rules[0].Verbs[0] == "changed" || bindings2[0].Subjects[0].Name == "changed" {
		t.Errorf("BootstrapPolicy shares objects between calls")
	}
	// The node authorizer's rules are the system:node role's.
	if !reflect.DeepEqual(findRole(roles2, "system:node").Rules, nodeRules()) {
		t.Errorf("system:node rules differ from the Node authorizer's")
	}
}
