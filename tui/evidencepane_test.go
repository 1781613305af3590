package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

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

func TestEtcdTabDiff(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	m.Update(stepMsg{gen: m.gen, up: testStep})
	_, cmd := m.Update(flowEventsMsg{gen: m.gen, evs: upTo(flow.StageBindingPersisted)})
	msg := collect(t, cmd, func(msg tea.Msg) bool { _, ok := msg.(historyMsg); return ok }).(historyMsg)
	if want := (historyKey{"/registry/pods/default/nginx", 412}); msg.key != want || msg.entry.Err != nil {
		t.Fatalf("history read %v (err %v), want %v", msg.key, msg.entry.Err, want)
	}
	if v := m.View(); !strings.Contains(v, "reading revision 412") {
		t.Errorf("before the history arrives the pane does not say it is reading it:\n%s", v)
	}
	m.Update(msg)
	v := m.View()
	for _, want := range []string{"diff against revision 412", `+    "nodeName": "node-2"`, `-    "resourceVersion": "412"`, `+    "resourceVersion": "415"`} {
		if !strings.Contains(v, want) {
			t.Errorf("etcd tab lacks %q:\n%s", want, v)
		}
	}
	// compacted history: the diff falls back on the recorded write
	m.Update(historyMsg{gen: m.gen, key: msg.key, entry: historyEntry{Err: errors.New("required revision has been compacted")}})
	v = m.View()
	for _, want := range []string{"history unavailable", `+    "nodeName": "node-2"`} {
		if !strings.Contains(v, want) {
			t.Errorf("after compaction the etcd tab lacks %q:\n%s", want, v)
		}
	}
}

func TestWatchTabChunkFraming(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageSchedulerNotified)
	v := m.View()
	frame := noHolds(upTo(flow.StageSchedulerNotified))[3].Watch.Frame
	for _, want := range []string{"ADDED  resourceVersion 412  → system:kube-scheduler", "one HTTP/1.1 chunk", strings.ToLower(strconvHex(len(frame))) + `\r\n`, `{"type":"ADDED","object":{"kind":"Pod"`} {
		if !strings.Contains(v, want) {
			t.Errorf("watch tab lacks %q:\n%s", want, v)
		}
	}
}

func strconvHex(n int) string { return strings.TrimLeft(strings.ToLower(hex4(n)), "0") }

func hex4(n int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[n>>12&15], digits[n>>8&15], digits[n>>4&15], digits[n&15]})
}

// TestEvidenceIsPrintable: strings from the cluster in the evidence
// (a scheduler's message, a node's name, a request URI) reach the screen
// without their terminal control sequences.
func TestEvidenceIsPrintable(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	evs := noHolds(upTo(flow.StageSchedulerNotified))
	last := evs[len(evs)-1]
	fail := flow.Event{Component: "scheduler", Object: last.Object, Time: last.Time.Add(time.Millisecond),
		Scheduling: &flow.SchedulingDecision{Attempt: 1, Message: "0/1 nodes are available\x1b]0;pwned\x07.", Nodes: []flow.NodeVerdict{
			{Node: "node-1\x1b[2J", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu\u009b2J"}}}}}
	m.Update(stepMsg{gen: m.gen, up: testStep})
	m.Update(flowEventsMsg{gen: m.gen, evs: append(evs, fail)})
	body := strings.Join(m.evidence.body, "\n")
	if strings.ContainsAny(body, "\x1b\x07\u009b") {
		t.Errorf("the evidence has control characters: %q", body)
	}
	for _, want := range []string{"0/1 nodes are available.", "node-1", "Insufficient cpu2J"} {
		if !strings.Contains(body, want) {
			t.Errorf("the evidence lacks %q:\n%s", want, body)
		}
	}
}
