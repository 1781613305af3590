package auth

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

func TestDecisionZeroValueDenies(t *testing.T) {
	var d Decision
	if d != DecisionDeny {
		t.Errorf("zero Decision = %v, want %v", d, DecisionDeny)
	}
	var r Result
	if r.Decision != DecisionDeny {
		t.Errorf("zero Result.Decision = %v, want %v", r.Decision, DecisionDeny)
	}
}

func TestChain(t *testing.T) {
	fixed := func(name string, d Decision, reason string, err error) Authorizer {
		return AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
			return Result{Decision: d, Reason: reason, Authorizer: name}, err
		})
	}
	boom := errors.New("boom")
	tests := []struct {
		name        string
		chain       []Authorizer
		want        Result
		wantErr     string
		wantErrNone bool
	}{
		{name: "empty chain denies", want: Result{Decision: DecisionDeny}, wantErrNone: true},
		{name: "first allow wins",
			chain:       []Authorizer{fixed("Node", DecisionNoOpinion, "", nil), fixed("RBAC", DecisionAllow, "ok", nil), fixed("X", DecisionDeny, "", nil)},
			want:        Result{Decision: DecisionAllow, Reason: "ok", Authorizer: "RBAC"},
			wantErrNone: true},
		{name: "first deny wins",
			chain:       []Authorizer{fixed("X", DecisionDeny, "no", nil), fixed("RBAC", DecisionAllow, "ok", nil)},
			want:        Result{Decision: DecisionDeny, Reason: "no", Authorizer: "X"},
			wantErrNone: true},
		{name: "all no opinion denies with empty reason",
			chain:       []Authorizer{fixed("Node", DecisionNoOpinion, "", nil), fixed("RBAC", DecisionNoOpinion, "", nil)},
			want:        Result{Decision: DecisionDeny},
			wantErrNone: true},
		{name: "no opinion reasons are kept, named like upstream",
			chain: []Authorizer{fixed("Node", DecisionNoOpinion, "node 'a' cannot read all nodes, only its own Node object", nil),
				fixed("RBAC", DecisionNoOpinion, `RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`, nil)},
			want: Result{Decision: DecisionDeny,
				Reason: "node: node 'a' cannot read all nodes, only its own Node object\n" +
					`rbac: RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`},
			wantErrNone: true},
		{name: "errors of no-opinion answers are returned",
			chain:   []Authorizer{fixed("A", DecisionNoOpinion, "", boom), nil, fixed("B", DecisionNoOpinion, "", nil)},
			want:    Result{Decision: DecisionDeny},
			wantErr: "boom"},
		{name: "an allow with an error still allows",
			chain:   []Authorizer{fixed("A", DecisionAllow, "", boom)},
			want:    Result{Decision: DecisionAllow, Authorizer: "A"},
			wantErr: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Chain(tt.chain...).Authorize(context.Background(), Attributes{})
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.wantErrNone && err != nil:
				t.Errorf("err = %v, want none", err)
			case !tt.wantErrNone && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestForbidden(t *testing.T) {
	student := &User{Name: "student", Groups: []string{GroupAuthenticated}}
	scheduler := &User{Name: SchedulerUser, Groups: []string{GroupAuthenticated}}
	tests := []struct {
		name        string
		attrs       Attributes
		reason      string
		wantMessage string // ForbiddenMessage
		wantStatus  string // Forbidden(...).Status().Message
		wantGroup   string
		wantKind    string
		wantName    string
	}{
		{name: "namespaced create",
			attrs:       Attributes{User: student, Verb: "create", ResourceRequest: true, APIVersion: "v1", Resource: "pods", Namespace: "default"},
			wantMessage: `User "student" cannot create resource "pods" in API group "" in the namespace "default"`,
			wantStatus:  `pods is forbidden: User "student" cannot create resource "pods" in API group "" in the namespace "default"`,
			wantKind:    "pods"},
		{name: "cluster-scoped delete of a named object",
			attrs:       Attributes{User: scheduler, Verb: "delete", ResourceRequest: true, APIVersion: "v1", Resource: "nodes", Name: "node-b"},
			wantMessage: `User "system:kube-scheduler" cannot delete resource "nodes" in API group "" at the cluster scope`,
			wantStatus:  `nodes "node-b" is forbidden: User "system:kube-scheduler" cannot delete resource "nodes" in API group "" at the cluster scope`,
			wantKind:    "nodes", wantName: "node-b"},
		{name: "subresource in a group",
			attrs: Attributes{User: student, Verb: "update", ResourceRequest: true, APIGroup: "coordination.k8s.io", APIVersion: "v1",
				Resource: "leases", Subresource: "status", Namespace: "kube-node-lease", Name: "node-a"},
			wantMessage: `User "student" cannot update resource "leases/status" in API group "coordination.k8s.io" in the namespace "kube-node-lease"`,
			wantStatus:  `leases.coordination.k8s.io "node-a" is forbidden: User "student" cannot update resource "leases/status" in API group "coordination.k8s.io" in the namespace "kube-node-lease"`,
			wantGroup:   "coordination.k8s.io", wantKind: "leases", wantName: "node-a"},
		{name: "pod status",
			attrs:       Attributes{User: student, Verb: "patch", ResourceRequest: true, APIVersion: "v1", Resource: "pods", Subresource: "status", Namespace: "default", Name: "web"},
			wantMessage: `User "student" cannot patch resource "pods/status" in API group "" in the namespace "default"`,
			wantStatus:  `pods "web" is forbidden: User "student" cannot patch resource "pods/status" in API group "" in the namespace "default"`,
			wantKind:    "pods", wantName: "web"},
		{name: "non-resource path",
			attrs:       Attributes{User: &User{Name: "x"}, Verb: "get", Path: "/metrics"},
			wantMessage: `User "x" cannot get path "/metrics"`,
			wantStatus:  `forbidden: User "x" cannot get path "/metrics"`},
		{name: "reason is appended",
			attrs:       Attributes{User: &User{Name: "system:node:node-a"}, Verb: "list", ResourceRequest: true, APIVersion: "v1", Resource: "nodes"},
			reason:      "node: node 'node-a' cannot read all nodes, only its own Node object",
			wantMessage: `User "system:node:node-a" cannot list resource "nodes" in API group "" at the cluster scope`,
			wantStatus:  `nodes is forbidden: User "system:node:node-a" cannot list resource "nodes" in API group "" at the cluster scope: node: node 'node-a' cannot read all nodes, only its own Node object`,
			wantKind:    "nodes"},
		{name: "html is escaped in the message, nil user",
			attrs:       Attributes{Verb: "get", Path: "/<script>&"},
			wantMessage: `User "" cannot get path "/&lt;script&gt;&amp;"`,
			wantStatus:  `forbidden: User "" cannot get path "/&lt;script&gt;&amp;"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForbiddenMessage(tt.attrs); got != tt.wantMessage {
				t.Errorf("ForbiddenMessage:\ngot  %s\nwant %s", got, tt.wantMessage)
			}
			st := Forbidden(tt.attrs, tt.reason).Status()
			if st.Message != tt.wantStatus {
				t.Errorf("Status message:\ngot  %s\nwant %s", st.Message, tt.wantStatus)
			}
			if st.Code != http.StatusForbidden || st.Reason != "Forbidden" || st.Status != "Failure" {
				t.Errorf("status = %d %s %s, want 403 Forbidden Failure", st.Code, st.Reason, st.Status)
			}
			if st.Details == nil || st.Details.Group != tt.wantGroup || st.Details.Kind != tt.wantKind || st.Details.Name != tt.wantName {
				t.Errorf("details = %+v, want group %q kind %q name %q", st.Details, tt.wantGroup, tt.wantKind, tt.wantName)
			}
		})
	}
}
