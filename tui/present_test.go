package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// presentModel is startedModel in the presenter's mode.
func presentModel(t *testing.T, w, h int, lang string) *Model {
	t.Helper()
	m := newModel(context.Background(), &fakeDriver{}, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: lang, Now: fixedNow, Present: true}, asciiRenderer())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.start("pod-create")
	s := newFakeSession(StartOptions{Mode: flow.ModeStep, Speed: 1})
	t.Cleanup(func() { _ = s.Close() })
	m.Update(sessionStartedMsg{gen: m.gen, sess: s})
	m.Update(tickMsg(fixedNow()))
	return m
}

// holdStep starts step up and holds it at its gate, as the runner does.
func holdStep(m *Model, up StepUpdate) {
	m.Update(stepMsg{gen: m.gen, up: up})
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{{Component: "gate", Time: t0, Hold: &flow.Hold{
		Boundary: flow.Boundary{Point: flow.PointNextStep, Component: "scenario", Object: flow.ObjectRef{Name: "3/7 long"}}}}}})
}

// shownNarration returns the indices of the narration's lines the view
// shows under the header: the window's, when the rows there are those
// lines (none when they are not).
func shownNarration(m *Model, view string) map[int]bool {
	rows := strings.Split(ansi.Strip(view), "\n")
	lines, n := m.narrationLines(), m.narrationText()
	shown := map[int]bool{}
	for i := range n {
		k := m.narr.off + i
		if k >= len(lines) || headerRows+i >= len(rows) ||
			strings.TrimRight(rows[headerRows+i], " ") != strings.TrimRight(lines[k], " ") {
			return nil
		}
		shown[k] = true
	}
	return shown
}

// pageThrough returns the narration's lines shown as page down pages
// through it from its top, checking each screen's size and that the status line says
// when more is below.
func pageThrough(t *testing.T, m *Model, w, h int) map[int]bool {
	t.Helper()
	lines := m.narrationLines()
	more := fmt.Sprintf(tr(m.shared.lang, "narr_page"), 0)
	more = more[strings.Index(more, "0")+1:] // " more: pgdn", "行：pgdn"
	for range lines {
		m.Update(keyMsg("pgup")) // from the top
	}
	seen := map[int]bool{}
	for page := 0; page < len(lines) && len(seen) < len(lines); page++ {
		v := m.View()
		checkSize(t, v, w, h)
		for l := range shownNarration(m, v) {
			seen[l] = true
		}
		if len(seen) < len(lines) && !strings.Contains(v, more) {
			t.Fatalf("page %d: the status line does not say more is below:\n%s", page, ansi.Strip(v))
		}
		m.Update(keyMsg("pgdown"))
	}
	return seen
}

// TestPresentPodless: a run without pods shows no pipeline and no
// cluster view; the evidence takes the whole width, and the whole
// narration is shown, in step mode and in auto mode, at 80×24 and
// 120×40, in English and in Chinese.
func TestPresentPodless(t *testing.T) {
	for _, sz := range []struct {
		w, h int
		lang string
	}{{80, 24, "en"}, {120, 40, "en"}, {80, 24, "zh"}} {
		m := presentModel(t, sz.w, sz.h, sz.lang)
		for _, mode := range []string{"step", "auto"} {
			if mode == "auto" {
				m.Update(keyMsg("p"))
			}
			holdStep(m, longStep)
			v := m.View()
			checkSize(t, v, sz.w, sz.h)
			plain := ansi.Strip(v)
			if strings.Contains(plain, tr(sz.lang, "pipeline")) || strings.Contains(plain, tr(sz.lang, "cluster")) || strings.Contains(plain, "8 "+stageShort[flow.StageStatusPersisted].In(sz.lang)) {
				t.Errorf("%d×%d %s: a run without pods shows the pipeline or the cluster:\n%s", sz.w, sz.h, mode, plain)
			}
			row := strings.Split(plain, "\n")[headerRows+m.narrationText()+1]
			if !strings.HasPrefix(row, "╭") || !strings.Contains(row, tr(sz.lang, "evidence")) || !strings.HasSuffix(row, "╮") {
				t.Errorf("%d×%d %s: the evidence is not the whole width: %q", sz.w, sz.h, mode, row)
			}
			if got, want := len(pageThrough(t, m, sz.w, sz.h)), len(m.narrationLines()); got != want {
				t.Errorf("%d×%d %s %s: %d of the narration's %d lines shown:\n%s", sz.w, sz.h, sz.lang, mode, got, want, plain)
			}
		}
	}
}

// TestPresentNarrationPages: with a pod shown, a narration longer than
// the rows the pipeline leaves is paged with page down and up, and the
// status line says what is below and above; in auto mode too, and not
// outside the presenter's mode.
func TestPresentNarrationPages(t *testing.T) {
	m := presentModel(t, 80, 24, "en")
	feed(m, flow.StageScheduled)
	holdStep(m, hugeStep)
	lines := m.narrationLines()
	if n := m.narrationText(); n != 24-headerRows-1-helpRows-pipelineRows {
		t.Errorf("the narration has %d rows at 80×24 with a pod, want all the pipeline leaves", n)
	}
	if !strings.Contains(ansi.Strip(m.View()), "1 admitted") {
		t.Fatalf("the pipeline is not shown:\n%s", ansi.Strip(m.View()))
	}
	if seen := pageThrough(t, m, 80, 24); len(seen) != len(lines) {
		t.Errorf("paging showed %d of the narration's %d lines", len(seen), len(lines))
	}
	if v := m.View(); !strings.Contains(v, ": pgup") {
		t.Errorf("at the end the status line does not say what is above:\n%s", ansi.Strip(v))
	}
	m.Update(keyMsg("p")) // auto mode: still not cut to two rows
	if n := m.narrationText(); n <= narrationRows-1 {
		t.Errorf("in auto mode the narration has %d rows", n)
	}
	for range len(lines) {
		m.Update(keyMsg("pgup"))
	}
	if got := shownNarration(m, m.View()); !got[0] {
		t.Errorf("page up does not go back to the first line")
	}
	// the next step starts at its top
	m.narr.off = 5
	next := longStep
	next.Index = 4
	holdStep(m, next)
	if m.narr.off != 0 {
		t.Errorf("a new step's narration starts at line %d", m.narr.off)
	}
}
