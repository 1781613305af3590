package auth

import (
	"context"
	"testing"
)

func serviceAccountUser(namespace, name string) *User {
	return &User{Name: ServiceAccountUsernamePrefix + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, GroupAuthenticated}}
}

// TestControllerIdentities checks what the controller manager and each
// controller's service account may do through the bootstrap policy.
func TestControllerIdentities(t *testing.T) {
	z := NewRBACAuthorizer(mustPolicy(t))
	controller := func(name string) *User { return serviceAccountUser("kube-system", name) }
	tests := []struct {
		name  string
		attrs Attributes
		want  Decision
	}{
		{"kcm watches everything", resAttrs(user(ControllerManagerUser), "watch", "apps", "replicasets", "", "", ""), DecisionAllow},
		{"kcm makes a controller's token", resAttrs(user(ControllerManagerUser), "create", "", "serviceaccounts", "token", "kube-system", "deployment-controller"), DecisionAllow},
		{"kcm itself creates no pods", resAttrs(user(ControllerManagerUser), "create", "", "pods", "", "default", ""), DecisionNoOpinion},
		{"deployment controller creates replicasets", resAttrs(controller("deployment-controller"), "create", "apps", "replicasets", "", "default", ""), DecisionAllow},
		{"deployment controller updates deployment status", resAttrs(controller("deployment-controller"), "update", "apps", "deployments", "status", "default", "web"), DecisionAllow},
		{"deployment controller creates no pods", resAttrs(controller("deployment-controller"), "create", "", "pods", "", "default", ""), DecisionNoOpinion},
		{"replicaset controller creates pods", resAttrs(controller("replicaset-controller"), "create", "", "pods", "", "default", ""), DecisionAllow},
		{"replicaset controller patches no replicasets", resAttrs(controller("replicaset-controller"), "patch", "apps", "replicasets", "", "default", "web"), DecisionNoOpinion},
		{"garbage collector deletes anything", resAttrs(controller("generic-garbage-collector"), "delete", "apps", "replicasets", "", "default", "web"), DecisionAllow},
		{"garbage collector creates nothing", resAttrs(controller("generic-garbage-collector"), "create", "", "pods", "", "default", ""), DecisionNoOpinion},
		{"endpointslice controller writes slices", resAttrs(controller("endpointslice-controller"), "update", "discovery.k8s.io", "endpointslices", "", "default", "web-abc"), DecisionAllow},
		{"endpoint controller writes endpoints", resAttrs(controller("endpoint-controller"), "update", "", "endpoints", "", "default", "web"), DecisionAllow},
		{"node controller taints nodes", resAttrs(controller("node-controller"), "patch", "", "nodes", "", "", "node-a"), DecisionAllow},
		{"node controller evicts pods", resAttrs(controller("node-controller"), "delete", "", "pods", "", "default", "web-1"), DecisionAllow},
		{"node controller reads leases", resAttrs(controller("node-controller"), "list", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), DecisionAllow},
		{"namespace controller empties namespaces", resAttrs(controller("namespace-controller"), "deletecollection", "", "configmaps", "", "team-a", ""), DecisionAllow},
		{"namespace controller finalizes", resAttrs(controller("namespace-controller"), "update", "", "namespaces", "finalize", "", "team-a"), DecisionAllow},
		{"resourcequota controller counts anything", resAttrs(controller("resourcequota-controller"), "watch", "batch", "jobs", "", "", ""), DecisionAllow},
		{"resourcequota controller writes quota status", resAttrs(controller("resourcequota-controller"), "update", "", "resourcequotas", "status", "default", "q"), DecisionAllow},
		{"resourcequota controller changes no quota spec", resAttrs(controller("resourcequota-controller"), "update", "", "resourcequotas", "", "default", "q"), DecisionNoOpinion},
		{"service account controller creates default", resAttrs(controller("service-account-controller"), "create", "", "serviceaccounts", "", "team-a", ""), DecisionAllow},
		{"a controller's role is not another's", resAttrs(controller("service-account-controller"), "create", "", "pods", "", "team-a", ""), DecisionNoOpinion},
		{"the same name elsewhere is nobody", resAttrs(serviceAccountUser("default", "replicaset-controller"), "create", "", "pods", "", "default", ""), DecisionNoOpinion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := z.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if got.Decision != tt.want {
				t.Errorf("%s: %v (%s), want %v", ForbiddenMessage(tt.attrs), got.Decision, got.Reason, tt.want)
			}
		})
	}
}

// TestAggregatedRolesCoverServedResources checks view, edit and admin
// (through a RoleBinding's ClusterRole, as upstream aggregates them) on
// the objects the controllers work with.
func TestAggregatedRolesCoverServedResources(t *testing.T) {
	src := mustPolicy(t)
	tests := []struct {
		role, verb, group, resource, sub string
		want                             bool
	}{
		{"view", "list", "", "configmaps", "", true},
		{"view", "get", "", "secrets", "", false},
		{"view", "list", "", "services", "", true},
		{"view", "list", "", "endpoints", "", true},
		{"view", "list", "", "serviceaccounts", "", true},
		{"view", "list", "discovery.k8s.io", "endpointslices", "", true},
		{"view", "get", "apps", "deployments", "scale", true},
		{"view", "list", "apps", "replicasets", "", true},
		{"view", "create", "apps", "deployments", "", false},
		{"edit", "create", "apps", "deployments", "", true},
		{"edit", "update", "apps", "deployments", "scale", true},
		{"edit", "delete", "apps", "replicasets", "", true},
		{"edit", "create", "", "secrets", "", true},
		{"edit", "create", "", "services", "", true},
		{"edit", "create", "", "serviceaccounts", "token", true},
		// Upstream's edit does not write Endpoints or EndpointSlices (CVE-2021-25740).
		{"edit", "create", "", "endpoints", "", false},
		{"edit", "create", "discovery.k8s.io", "endpointslices", "", false},
		{"edit", "update", "apps", "deployments", "status", false},
		{"admin", "create", "rbac.authorization.k8s.io", "rolebindings", "", true},
		{"admin", "create", "apps", "replicasets", "", true},
	}
	for _, tt := range tests {
		role, ok := findRoleIn(src.clusterRoles, tt.role)
		if !ok {
			t.Fatalf("no ClusterRole %s", tt.role)
		}
		a := resAttrs(user("x"), tt.verb, tt.group, tt.resource, tt.sub, "team-a", "")
		if _, got := firstAllowing(a, role.Rules); got != tt.want {
			t.Errorf("%s: %s %s %s/%s allowed = %v, want %v", tt.role, tt.verb, tt.group, tt.resource, tt.sub, got, tt.want)
		}
	}
}
