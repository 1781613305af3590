package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// waitTimeout is the deadline of the package's waits for a program, a
// command, a watch or a gate to reach a state: generous, so that only a
// hang reaches it, never a slow machine. A passing test does not wait
// longer for it: each wait returns as soon as its condition holds.
const waitTimeout = waitfor.Bound

// runProgram runs the TUI's root model in a teatest program of size w×h.
func runProgram(t *testing.T, d *fakeDriver, opts Options, w, h int) (*teatest.TestModel, *Model) {
	t.Helper()
	opts.Now = fixedNow
	m := newModel(context.Background(), d, opts, asciiRenderer())
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
		if err := m.sessions.closeAll(); err != nil {
			t.Errorf("closeAll: %v", err)
		}
	})
	return tm, m
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(waitTimeout), teatest.WithCheckInterval(5*time.Millisecond))
}

func finalView(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(waitTimeout))
	return fm.(*Model).View()
}

// TestPickerGolden opens the TUI without a scenario: the picker lists
// the scenarios with the summary of the one under the cursor.
func TestPickerGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			d := &fakeDriver{}
			tm, _ := runProgram(t, d, Options{Mode: flow.ModeAuto, Speed: 1, Lang: "en"}, sz.w, sz.h)
			waitFor(t, tm, "watch-mechanics")
			tm.Send(tea.KeyMsg{Type: tea.KeyDown})
			waitFor(t, tm, "One GET")
			tm.Type("q")
			view := finalView(t, tm)
			checkSize(t, view, sz.w, sz.h)
			golden.RequireEqual(t, []byte(view))
			if len(d.starts) != 0 {
				t.Errorf("started %v before a scenario was chosen", d.starts)
			}
		})
	}
}

// TestHelpGolden shows the full help over a running scenario.
func TestHelpGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			d := &fakeDriver{}
			tm, _ := runProgram(t, d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: "en"}, sz.w, sz.h)
			waitFor(t, tm, "KUBECONFIG")
			tm.Type("?")
			waitFor(t, tm, "evidence tab")
			tm.Type("q")
			view := finalView(t, tm)
			checkSize(t, view, sz.w, sz.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestStepThrough plays a scenario in step mode: the fake cluster waits
// at the real gate after each stage, space advances it, and the summary
// comes at the end.
func TestStepThrough(t *testing.T) {
	d := &fakeDriver{play: playStages}
	tm, _ := runProgram(t, d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: "en"}, 120, 40)
	for s := 2; s <= 8; s++ {
		waitFor(t, tm, fmt.Sprintf("held at stage %d: ", s))
		if held := d.session().Gate().Held(); len(held) != 1 || held[0].Point.After() != flow.Stage(s-1) {
			t.Fatalf("at stage %d the gate holds %v, want one boundary after stage %d", s-1, held, s-1)
		}
		tm.Type(" ")
	}
	waitFor(t, tm, "Scenario finished")
	tm.Type("q")
	view := finalView(t, tm)
	checkSize(t, view, 120, 40)
	golden.RequireEqual(t, []byte(view))
	for _, want := range []string{"every expectation held", "→ node-2", "/registry/pods/default/nginx rev 418", "enter: next scenario (request-lifecycle)"} {
		if !strings.Contains(view, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}
