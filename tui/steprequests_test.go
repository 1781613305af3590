package tui

import (
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestStepRequests: a step that creates no pod shows its own requests
// (not the scheduler's, the kubelets' or the TUI's) in the evidence pane.
func TestStepRequests(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageStatusPersisted)
	m.Update(stepMsg{gen: m.gen, up: StepUpdate{Index: 2, Total: 2, Narration: flow.Text{En: "As student, list nodes."}, Action: "http GET /api/v1/nodes (request, HTTP/2)"}})
	forbidden := &flow.RequestTrace{AuditID: "a1", Method: "GET", URI: "/api/v1/nodes", Proto: "HTTP/2.0", User: "student", Code: 403,
		Steps: []flow.Step{{Name: "authorized", Outcome: "denied", Detail: `RBAC: no rule allows "list" on "nodes"`}}}
	lease := &flow.RequestTrace{AuditID: "a2", Method: "PUT", URI: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1", User: "system:node:node-1", Code: 200}
	own := &flow.RequestTrace{AuditID: "a3", Method: "GET", URI: "/api/v1/events?watch=true", User: "admin", UserAgent: tuiUserAgent, Code: 200}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{
		{Component: "apiserver", Time: t0, Request: lease}, {Component: "apiserver", Time: t0, Request: forbidden}, {Component: "apiserver", Time: t0, Request: own},
	}})
	v := m.View()
	for _, want := range []string{"Step 2: its requests", "GET /api/v1/nodes", "→ 403", `no rule allows "list"`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	for _, not := range []string{"leases/node-1", "events?watch"} {
		if strings.Contains(v, not) {
			t.Errorf("view shows a request that is not the step's (%q):\n%s", not, v)
		}
	}
	// ←: the learner goes back to the pod's stages
	m.Update(keyMsg("left"))
	if v := m.View(); strings.Contains(v, "Step 2: its requests") || !strings.Contains(v, "7/8") {
		t.Errorf("after ← the evidence pane still shows the step's requests:\n%s", v)
	}
}

// TestStepRequestFiledEarly: a step's request whose event came before
// the step's start (two channels) is still shown with its step.
func TestStepRequestFiledEarly(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	m.Update(stepMsg{gen: m.gen, up: StepUpdate{Index: 6, Total: 7, Action: "http PUT /api/v1/namespaces/default/pods (request, HTTP/2)"}})
	nf := &flow.RequestTrace{AuditID: "b1", Method: "GET", URI: "/api/v1/namespaces/default/pods/no-such-pod", User: "admin", UserAgent: "kubesim-scenario", Code: 404}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{{Component: "apiserver", Time: t0, Request: nf}}})
	m.Update(stepMsg{gen: m.gen, up: StepUpdate{Index: 7, Total: 7, Action: "http GET /api/v1/namespaces/default/pods/no-such-pod (request, HTTP/2)"}})
	if v := m.View(); !strings.Contains(v, "Step 7: its requests") || !strings.Contains(v, "→ 404") {
		t.Errorf("step 7 does not show its 404:\n%s", v)
	}
}

// TestRequestAction: the steps whose action is a request to the API
// server show their requests; the others' requests are the runner's.
func TestRequestAction(t *testing.T) {
	tests := []struct {
		action string
		want   bool
	}{
		{"apply Pod default/nginx", true},
		{"applyFile manifests/web.yaml", true},
		{"create Namespace team-a", true},
		{"update Deployment default/web", true},
		{"patch Node node-1", true},
		{"delete Pod default/nginx", true},
		{"http GET /api/v1/nodes (request, HTTP/2)", true},
		{"addNode node-4", false},
		{"stopKubelet node-2", false},
		{"", false},
		{"httpx GET /", false},
	}
	for _, tt := range tests {
		if got := requestAction(tt.action); got != tt.want {
			t.Errorf("requestAction(%q) = %v, want %v", tt.action, got, tt.want)
		}
	}
}

// TestStepRequestsBeforeThePodIsStored: apply reads the pod first (a
// 404); while the gate holds the created pod before etcd, the evidence
// pane shows its stage 1, not that GET.
func TestStepRequestsBeforeThePodIsStored(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	m.Update(stepMsg{gen: m.gen, up: testStep})
	get := &flow.RequestTrace{AuditID: "g1", Method: "GET", URI: "/api/v1/namespaces/default/pods/nginx", User: "admin", Code: 404}
	m.Update(flowEventsMsg{gen: m.gen, evs: append([]flow.Event{{Component: "apiserver", Time: t0, Request: get}}, upTo(flow.StageAdmitted)...)})
	if v := m.View(); strings.Contains(v, "its requests") || !strings.Contains(v, "1/8") {
		t.Errorf("the pod held after stage 1 is not what the evidence pane shows:\n%s", v)
	}
}
