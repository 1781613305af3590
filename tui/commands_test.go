package tui

import (
	"reflect"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// runCmd runs cmd and returns its message, failing after 5 s.
func runCmd(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case msg := <-got:
		return msg
	case <-time.After(waitTimeout):
		t.Fatalf("the command did not return within %v", waitTimeout)
		return nil
	}
}

// TestWaitForCommands: each waitFor command returns what its channel
// holds, as one message with the session's generation, and says when
// the channel is closed.
func TestWaitForCommands(t *testing.T) {
	const gen = 7
	t.Run("events waiting come as one message", func(t *testing.T) {
		s := newTestSession(t)
		for _, name := range []string{"a", "b", "c"} {
			s.rec.Record(flow.Event{Component: "test", Summary: name})
		}
		msg, ok := runCmd(t, waitForEvents(gen, s)).(flowEventsMsg)
		if !ok || msg.gen != gen || len(msg.evs) != 3 || msg.evs[0].Summary != "a" || msg.evs[2].Summary != "c" {
			t.Fatalf("waitForEvents = %+v, want gen %d and events a, b, c", msg, gen)
		}
	})
	t.Run("events closed", func(t *testing.T) {
		s := newTestSession(t)
		s.rec.Record(flow.Event{Component: "test", Summary: "last"})
		_ = s.Close()
		if msg, ok := runCmd(t, waitForEvents(gen, s)).(flowEventsMsg); !ok || len(msg.evs) != 1 {
			t.Fatalf("before the end: %+v, want the last event", msg)
		}
		if msg := runCmd(t, waitForEvents(gen, s)); msg != (eventsClosedMsg{gen}) {
			t.Fatalf("after the end: %#v, want eventsClosedMsg{%d}", msg, gen)
		}
	})
	t.Run("steps", func(t *testing.T) {
		s := newTestSession(t)
		s.steps <- testStep
		if msg := runCmd(t, waitForStep(gen, s)); !reflect.DeepEqual(msg, stepMsg{gen, testStep}) {
			t.Fatalf("waitForStep = %#v, want the step", msg)
		}
		close(s.steps)
		if msg := runCmd(t, waitForStep(gen, s)); msg != (stepsClosedMsg{gen}) {
			t.Fatalf("after the last step: %#v, want stepsClosedMsg{%d}", msg, gen)
		}
	})
	t.Run("done", func(t *testing.T) {
		s := newTestSession(t)
		close(s.done)
		if msg := runCmd(t, waitForDone(gen, s)); msg != (sessionDoneMsg{gen}) {
			t.Fatalf("waitForDone = %#v, want sessionDoneMsg{%d}", msg, gen)
		}
	})
}

// TestStaleMessagesChangeNothing: once the learner restarted, what the
// old session's commands still report changes nothing and re-arms no
// command; a session that finished starting too late is closed.
func TestStaleMessagesChangeNothing(t *testing.T) {
	late := newTestSession(t)
	tests := []struct {
		name string
		msg  func(old int) tea.Msg
	}{
		{"started", func(old int) tea.Msg { return sessionStartedMsg{gen: old, sess: late} }},
		{"flow events", func(old int) tea.Msg { return flowEventsMsg{gen: old, evs: upTo(flow.StageScheduled)} }},
		{"step", func(old int) tea.Msg { return stepMsg{gen: old, up: testStep} }},
		{"done", func(old int) tea.Msg { return sessionDoneMsg{gen: old} }},
		{"history", func(old int) tea.Msg {
			return historyMsg{gen: old, key: historyKey{"/registry/pods/default/nginx", 412}, entry: historyEntry{Value: []byte("{}")}}
		}},
		{"kube events", func(old int) tea.Msg { return kubeEventsMsg{gen: old, evs: kubeEventsUpTo(flow.StageScheduled)} }},
		{"cluster", func(old int) tea.Msg { return clusterMsg{gen: old, snap: snapshotAt(flow.StageScheduled)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := startedModel(t, 120, 40, "en")
			old := m.gen
			m.start("pod-create") // the restart's command is not run
			before := m.View()
			if _, cmd := m.Update(tt.msg(old)); cmd != nil {
				t.Error("a stale message re-armed a command")
			}
			if m.tracks.followed() != nil || m.hasStep || m.done || m.overlay != overlayNone || m.sess != nil || !m.starting ||
				len(m.etcdHistory) != 0 || len(m.events.events) != 0 || len(m.cluster.snap.Nodes) != 0 {
				t.Errorf("a stale %s message changed the model", tt.name)
			}
			if after := m.View(); after != before {
				t.Errorf("a stale %s message changed the view:\n%s\nwant\n%s", tt.name, after, before)
			}
		})
	}
	if !late.isClosed() {
		t.Error("the session that started after the restart is open")
	}
}
