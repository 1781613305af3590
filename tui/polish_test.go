package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestHeldInsideStageSix: the hold before the containers comes after the
// kubelet's watch frame (a stage-6 event); the pipeline, the narration and
// the highlighted stage must all say stage 6 is held, not 7.
func TestHeldInsideStageSix(t *testing.T) {
	evs := noHolds(upTo(flow.StageKubeletNotified))
	var upToWatch []flow.Event
	for _, e := range evs {
		if e.Runtime == nil {
			upToWatch = append(upToWatch, e)
		}
	}
	last := upToWatch[len(upToWatch)-1]
	hold := flow.Event{Component: "gate", Object: last.Object, Time: last.Time.Add(time.Millisecond),
		Hold: &flow.Hold{Boundary: flow.Boundary{Point: flow.PointBeforeContainers, Component: "kubelet/node-2", Object: last.Object}}}
	m, _ := startedModel(t, 80, 24, "en")
	m.Update(stepMsg{gen: m.gen, up: testStep})
	m.Update(flowEventsMsg{gen: m.gen, evs: append(upToWatch, hold)})
	tr := m.tracks.followed()
	tests := []struct {
		s    flow.Stage
		want stageState
	}{
		{flow.StageBindingPersisted, stateDone},
		{flow.StageKubeletNotified, stateHeld},
		{flow.StageStatusReported, statePending},
	}
	for _, tt := range tests {
		if got := tr.state(tt.s); got != tt.want {
			t.Errorf("state(%d) = %d, want %d", tt.s, got, tt.want)
		}
	}
	if got := tr.current(); got != flow.StageKubeletNotified {
		t.Errorf("current() = %d, want 6", got)
	}
	v := m.View()
	for _, want := range []string{"held at stage 6: the kubelet has it, before pulling and creating containers", "‖ 6 kubelet runs", "· 7 status sent"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// before any runtime action, stage 6's evidence is the watch frame
	if !strings.Contains(v, "[watch]") || strings.Contains(v, "no kubelet evidence") {
		t.Errorf("stage 6 without runtime actions does not open the watch tab:\n%s", v)
	}
}

// TestStageTimes: a stage's time is the system's, from the end of the
// previous stage to its own end, without the gate's holds; the runtime's
// work counts for stage 6, not 7.
func TestStageTimes(t *testing.T) {
	ts := newTrackSet()
	for _, e := range upTo(flow.StageStatusPersisted) {
		ts.add(e)
	}
	tr := ts.followed()
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	tests := []struct {
		s    flow.Stage
		want time.Duration
	}{
		{flow.StageAdmitted, ms(0.355)},
		{flow.StagePersisted, ms(1204 - 0.355 - 900)},
		{flow.StageSchedulerNotified, ms(2207 - 1204 - 900)},
		{flow.StageKubeletNotified, ms(7120 - 4230 - 900 - 900)},
		{flow.StageStatusReported, ms(8101 - 7120 - 900)},
		{flow.StageStatusPersisted, ms(9110 - 8101 - 900)},
	}
	for _, tt := range tests {
		got, ok := tr.took(tt.s)
		if !ok || got != tt.want {
			t.Errorf("took(%d) = %v, %v; want %v", tt.s, got, ok, tt.want)
		}
	}
	if got, want := tr.heldFor(flow.StageKubeletNotified, t0), 1800*time.Millisecond; got != want {
		t.Errorf("heldFor(6) = %v, want %v", got, want)
	}
}

// TestKubeletTimeline: runtime actions are recorded when they end; the
// timeline shows when each began.
func TestKubeletTimeline(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageKubeletNotified)
	v := m.View()
	for _, want := range []string{"+0s      kubelet/node-2 pull    800ms", "+800ms   kubelet/node-2 create  50ms", "+850ms   kubelet/node-2 start   20ms"} {
		if !strings.Contains(v, want) {
			t.Errorf("kubelet tab lacks %q:\n%s", want, v)
		}
	}
}

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

// TestUnschedulableShowsAttempts: failed scheduling attempts (stage 0)
// are the evidence of stage 4 until the pod is bound.
func TestUnschedulableShowsAttempts(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	evs := noHolds(upTo(flow.StageSchedulerNotified))
	last := evs[len(evs)-1]
	fail := flow.Event{Component: "scheduler", Object: last.Object, Time: last.Time.Add(time.Millisecond),
		Scheduling: &flow.SchedulingDecision{Attempt: 1, Message: "0/3 nodes are available: 3 Insufficient cpu.", Nodes: []flow.NodeVerdict{
			{Node: "node-1", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}}}}}
	m.Update(stepMsg{gen: m.gen, up: testStep})
	m.Update(flowEventsMsg{gen: m.gen, evs: append(evs, fail)})
	v := m.View()
	for _, want := range []string{"✗ 4 scheduled", "1× no fit", "[scheduler]", "attempt 1: no node fits", "3 Insufficient cpu"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}

// TestNarrationCut: a narration longer than its rows ends in one
// ellipsis and the key that shows the rest, and taller screens give it
// more rows.
func TestNarrationCut(t *testing.T) {
	long := StepUpdate{Index: 1, Total: 1, Narration: flow.Text{En: strings.Repeat("The scheduler filters the nodes and scores the rest. ", 30)}}
	for _, sz := range sizes {
		m, _ := startedModel(t, sz.w, sz.h, "en")
		m.Update(stepMsg{gen: m.gen, up: long})
		v := m.View()
		checkSize(t, v, sz.w, sz.h)
		rows := splitLines(v)
		n := m.narrationText()
		cut, ok := strings.CutSuffix(strings.TrimRight(rows[headerRows+n-1], " "), " d: read all")
		if !ok || !strings.HasSuffix(cut, "…") || strings.HasSuffix(cut, "……") || strings.HasSuffix(cut, " …") {
			t.Errorf("%dx%d: last narration row %q does not end in one ellipsis after text", sz.w, sz.h, cut)
		}
		if sz.h >= 40 && n <= narrationRows-1 {
			t.Errorf("%dx%d: narration gets %d rows, want more on a tall screen", sz.w, sz.h, n)
		}
		if !strings.Contains(rows[headerRows+n], "no action") {
			t.Errorf("%dx%d: a step without action shows %q", sz.w, sz.h, rows[headerRows+n])
		}
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

func TestMarkdownStepResult(t *testing.T) {
	long := strings.Repeat("x", 500)
	for _, tc := range []struct {
		s    StepUpdate
		want string
	}{
		{StepUpdate{}, ""},
		{StepUpdate{Action: "apply Pod default/web", Result: "201 Pod default/web created"}, "`apply Pod default/web` → 201 Pod default/web created"},
		{StepUpdate{Action: "http GET /x", Result: "200 " + long}, "`http GET /x` → 200 " + strings.Repeat("x", markdownResultMax-4) + "…"},
		{StepUpdate{Result: "a\n  b"}, "→ a b"},
	} {
		if got := markdownStepResult(tc.s); got != tc.want {
			t.Errorf("markdownStepResult(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
