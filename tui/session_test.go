package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// collect runs cmd and the commands it batches, each in its own
// goroutine, and returns the first message that want accepts.
func collect(t *testing.T, cmd tea.Cmd, want func(tea.Msg) bool) tea.Msg {
	t.Helper()
	out := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			out <- msg
		}()
	}
	run(cmd)
	deadline := time.After(waitTimeout)
	for {
		select {
		case msg := <-out:
			if want(msg) {
				return msg
			}
		case <-deadline:
			t.Fatalf("no wanted message within %v", waitTimeout)
			return nil
		}
	}
}

func TestRestartClosesAndStartsAgain(t *testing.T) {
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Now: fixedNow}, asciiRenderer())
	defer m.sessions.closeAll()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	started := func(msg tea.Msg) bool { _, ok := msg.(sessionStartedMsg); return ok }
	m.Update(collect(t, m.Init(), started))
	first := d.session()
	m.Update(flowEventsMsg{gen: m.gen, evs: upTo(flow.StageScheduled)})

	_, cmd := m.Update(keyMsg("r"))
	if m.tracks.followed() != nil {
		t.Error("restart kept the old pod's stages")
	}
	msg := collect(t, cmd, started)
	if !first.isClosed() {
		t.Error("restart did not close the old session")
	}
	m.Update(msg)
	if m.sess == nil || m.sess == Session(first) {
		t.Fatalf("after restart the session is %v, want a new one", m.sess)
	}
	if got := strings.Join(d.starts, ","); got != "pod-create,pod-create" {
		t.Errorf("starts = %s, want pod-create twice", got)
	}
	// a message of the old session changes nothing
	m.Update(flowEventsMsg{gen: m.gen - 1, evs: upTo(flow.StageScheduled)})
	if m.tracks.followed() != nil {
		t.Error("an event of the old session reached the new one")
	}
}

func TestPickerStartsChosenScenario(t *testing.T) {
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Now: fixedNow}, asciiRenderer())
	defer m.sessions.closeAll()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	collect(t, cmd, func(msg tea.Msg) bool { _, ok := msg.(sessionStartedMsg); return ok })
	if got := strings.Join(d.starts, ","); got != "watch-mechanics" {
		t.Errorf("starts = %q, want watch-mechanics", got)
	}
}

func TestStartErrorShown(t *testing.T) {
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Scenario: "broken", Now: fixedNow}, asciiRenderer())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(collect(t, m.Init(), func(msg tea.Msg) bool { _, ok := msg.(sessionStartedMsg); return ok }))
	if v := m.View(); !strings.Contains(v, "no such scenario") {
		t.Errorf("the start error is not shown:\n%s", v)
	}
}
