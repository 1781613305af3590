package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// Texts with terminal control sequences: a window title (OSC ended by BEL
// and by ST), clear screen and cursor home, a colour, a bell, a C1 CSI.
const (
	oscTitle = "\x1b]0;pwned\x07"
	clear2J  = "\x1b[H\x1b[2J"
	// rlo, the right-to-left override, shows what follows it reversed.
	rlo = "\u202e"
)

var hostileInfos = []ScenarioInfo{{Name: "pod-create", Level: "beginner", Steps: 1,
	Title:   flow.Text{En: "Title" + oscTitle, Zh: "标题" + clear2J},
	Summary: flow.Text{En: "Summary\x1b]2;pwned\x1b\\ here", Zh: "摘要\x1b[31m"}}}

var hostileStep = StepUpdate{Index: 1, Total: 1, ID: "step",
	Narration: flow.Text{En: "Before" + oscTitle + "after" + clear2J + " and\u009b2J\x07 more.", Zh: "旁白" + clear2J},
	Action:    "apply Pod default/web" + clear2J}

// hostileDriver is a fakeDriver whose scenarios have hostile texts.
type hostileDriver struct{ fakeDriver }

func (d *hostileDriver) Scenarios() []ScenarioInfo { return hostileInfos }

// noControls fails the test if view has an escape or control character
// other than newline (the ASCII renderer adds no styles of its own).
func noControls(t *testing.T, what, view string) {
	t.Helper()
	for _, r := range view {
		if r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			t.Errorf("%s: the view has control character %U:\n%q", what, r, view)
			return
		}
	}
}

// TestViewHasNoControlSequences: control sequences in what the driver
// hands over (title, summary, narration, action, result, failure) and in
// core/v1 Events never reach the rendered view, in the picker, the main
// screen, the narration overlay and the summary.
func TestViewHasNoControlSequences(t *testing.T) {
	d := &hostileDriver{}
	picker := newModel(context.Background(), d, Options{Mode: flow.ModeStep, Speed: 1, Lang: "en", Now: fixedNow}, asciiRenderer())
	picker.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	noControls(t, "picker", picker.View())
	if v := picker.View(); !strings.Contains(v, "Title") {
		t.Errorf("the picker does not show the title:\n%s", v)
	}

	m := newModel(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: "en", Now: fixedNow}, asciiRenderer())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.start("pod-create")
	s := newFakeSession(StartOptions{Mode: flow.ModeStep, Speed: 1})
	t.Cleanup(func() { _ = s.Close() })
	m.Update(sessionStartedMsg{gen: m.gen, sess: s})
	m.Update(tickMsg(fixedNow()))
	m.Update(stepMsg{gen: m.gen, up: hostileStep})
	ev := toKubeEvent(&corev1.Event{Type: "Warning", Reason: "Failed" + clear2J,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web"}, Message: "image" + oscTitle + " not found" + rlo + "txt.exe"})
	m.Update(kubeEventsMsg{gen: m.gen, evs: []kubeEvent{ev}})
	v := m.View()
	noControls(t, "main screen", v)
	if !strings.Contains(v, "Beforeafter") {
		t.Errorf("the narration is not shown without its control sequences:\n%s", v)
	}
	if !strings.Contains(v, "not found<U+202E>txt.exe") {
		t.Errorf("the event's right-to-left override is not shown escaped:\n%s", v)
	}

	m.Update(keyMsg("d"))
	noControls(t, "narration overlay", m.View())
	m.Update(keyMsg("d"))

	done := hostileStep
	done.Done, done.Result, done.Err = true, "422 invalid"+oscTitle, errors.New("step 1: expected x, saw y"+clear2J)
	m.Update(stepMsg{gen: m.gen, up: done})
	s.mu.Lock()
	s.err = errors.New("step 1 failed" + oscTitle)
	s.mu.Unlock()
	close(s.done)
	m.Update(sessionDoneMsg{gen: m.gen})
	noControls(t, "summary", m.View())
}
