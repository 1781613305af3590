package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestStepRequests: a step that creates no pod shows its own requests
// (not the scheduler's, the kubelets', the controller manager's Lease
// renewals, the expectation checks' or the TUI's) in the evidence pane.
func TestStepRequests(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageStatusPersisted)
	m.Update(stepMsg{gen: m.gen, up: StepUpdate{Index: 2, Total: 2, Narration: flow.Text{En: "As student, list nodes."}, Action: "http GET /api/v1/nodes (request, HTTP/2)"}})
	forbidden := &flow.RequestTrace{AuditID: "a1", Method: "GET", URI: "/api/v1/nodes", Proto: "HTTP/2.0", User: "student", UserAgent: ActionUserAgent, Code: 403,
		Steps: []flow.Step{{Name: "authorized", Outcome: "denied", Detail: `RBAC: no rule allows "list" on "nodes"`}}}
	lease := &flow.RequestTrace{AuditID: "a2", Method: "PUT", URI: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1", User: "system:node:node-1", Code: 200}
	own := &flow.RequestTrace{AuditID: "a3", Method: "GET", URI: "/api/v1/events?watch=true", User: "admin", UserAgent: tuiUserAgent, Code: 200}
	kcm := &flow.RequestTrace{AuditID: "a4", Method: "PUT", URI: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?timeout=10s",
		User: "system:kube-controller-manager", UserAgent: "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/kubesim/leader-election", Code: 200}
	poll := &flow.RequestTrace{AuditID: "a5", Method: "GET", URI: "/api/v1/namespaces/default/pods/x", User: "admin", UserAgent: "kubesim-expect", Code: 200}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{
		{Component: "apiserver", Time: t0, Request: lease}, {Component: "apiserver", Time: t0, Request: forbidden}, {Component: "apiserver", Time: t0, Request: own},
		{Component: "apiserver", Time: t0, Request: kcm}, {Component: "apiserver", Time: t0, Request: poll},
	}})
	v := m.View()
	for _, want := range []string{"Step 2: its requests", "GET /api/v1/nodes", "→ 403", `no rule allows "list"`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	for _, not := range []string{"leases/node-1", "events?watch", "kube-controller-manager", "pods/x"} {
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
	nf := &flow.RequestTrace{AuditID: "b1", Method: "GET", URI: "/api/v1/namespaces/default/pods/no-such-pod", User: "admin", UserAgent: ActionUserAgent, Code: 404}
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
	get := &flow.RequestTrace{AuditID: "g1", Method: "GET", URI: "/api/v1/namespaces/default/pods/nginx", User: "admin", UserAgent: ActionUserAgent, Code: 404}
	m.Update(flowEventsMsg{gen: m.gen, evs: append([]flow.Event{{Component: "apiserver", Time: t0, Request: get}}, upTo(flow.StageAdmitted)...)})
	if v := m.View(); strings.Contains(v, "its requests") || !strings.Contains(v, "1/8") {
		t.Errorf("the pod held after stage 1 is not what the evidence pane shows:\n%s", v)
	}
}

// TestStepRequestsSettled: the requests an ended step names (their audit
// IDs) are shown as its own, wherever their events were filed (under the
// step before it, or after the next step started); while the next step
// waits at its gate, the request tab shows them, and never the
// controller manager's Lease renewals.
func TestStepRequestsSettled(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	trace := func(id, method, uri string, code int) flow.Event {
		return flow.Event{Component: "apiserver", Time: t0, Request: &flow.RequestTrace{AuditID: id, Method: method, URI: uri,
			User: "admin", UserAgent: ActionUserAgent, Code: code}}
	}
	lease := flow.Event{Component: "apiserver", Time: t0, Request: &flow.RequestTrace{AuditID: "l1", Method: "PUT",
		URI: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager", User: "system:kube-controller-manager",
		UserAgent: "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/kubesim/leader-election", Code: 200}}
	step := func(i int, action string, done bool, ids ...string) {
		m.Update(stepMsg{gen: m.gen, up: StepUpdate{Index: i, Total: 5, ID: fmt.Sprintf("s%d", i), Action: action, Done: done, RequestIDs: ids}})
	}
	step(2, "create Namespace team-a", false)
	step(2, "create Namespace team-a", true, "n1")
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{trace("n1", "POST", "/api/v1/namespaces", 201), lease}})
	// step 3's first request comes before its start
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{trace("w0", "GET", "/apis/example.com/v1/namespaces/default/widgets/w1", 404)}})
	step(3, "apply Widget default/w1", false)
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{lease}})
	step(3, "apply Widget default/w1", true, "w0", "w1")
	step(4, "http GET /apis/example.com/v1/namespaces/default/widgets/w1 (request, HTTP/2)", false)
	// its second after the next step started
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{trace("w1", "POST", "/apis/example.com/v1/namespaces/default/widgets", 201), lease}})
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{{Component: "gate", Time: t0, Hold: &flow.Hold{
		Boundary: flow.Boundary{Point: flow.PointNextStep, Component: "scenario", Object: flow.ObjectRef{Name: "4/5 s4"}}}}}})
	v := ansi.Strip(m.View())
	for _, want := range []string{"Step 3: its requests", "POST", "/apis/example.com/v1/namespaces/default/widgets", "→ 201", "→ 404"} {
		if !strings.Contains(v, want) {
			t.Errorf("the request tab lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "leases") || strings.Contains(v, "/api/v1/namespaces ") {
		t.Errorf("the request tab shows a request that is not step 3's:\n%s", v)
	}
	if got := m.requestsByStep[2]; len(got) != 1 || got[0].tr.AuditID != "n1" {
		t.Errorf("step 2's requests: %v, want its namespace's create only", got)
	}
	if got := m.requestsByStep[4]; len(got) != 0 {
		t.Errorf("step 4 has requests before its action: %v", got)
	}
}
