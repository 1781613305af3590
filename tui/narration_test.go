package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubesim/kubesim/internal/flow"
)

// longStep is a step whose narration is much longer than the narration
// rows of an 80×24 screen, in both languages.
var longStep = StepUpdate{Index: 3, Total: 7, ID: "long", Action: "apply Pod default/nginx",
	Narration: flow.Text{
		En: strings.Repeat("The apiserver decodes the body, runs the mutating admission plugins, validates the pod and only then writes it to etcd under /registry/pods/default/nginx. ", 6) +
			"The last words of the narration.",
		Zh: strings.Repeat("API Server 先解码请求体，运行变更准入插件（比如补默认值），再校验 Pod，最后才把它写进 etcd 的 /registry/pods/default/nginx 键下；写入成功后，resourceVersion 就是 etcd 的修订版本号。", 6) +
			"这是旁白的最后一句。",
	}}

// hugeStep has a narration longer than the overlay's window at 120×40.
var hugeStep = StepUpdate{Index: 3, Total: 7, ID: "huge",
	Narration: flow.Text{
		En: strings.Repeat(longStep.Narration.En+" ", 8),
		Zh: strings.Repeat(longStep.Narration.Zh, 8),
	}}

// squash drops every space: wrapping drops the spaces where it breaks,
// so texts are compared without them.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// overlayRows returns the text rows inside the overlay's box of view.
func overlayRows(t *testing.T, view string) []string {
	t.Helper()
	var out []string
	for _, row := range splitLines(view) {
		if !strings.HasPrefix(row, "│") {
			continue
		}
		row = strings.TrimPrefix(strings.TrimSuffix(row, "│"), "│")
		out = append(out, strings.TrimSpace(row))
	}
	return out
}

var (
	keyEsc    = tea.KeyMsg{Type: tea.KeyEsc}
	keyDown   = tea.KeyMsg{Type: tea.KeyDown}
	keyPgDown = tea.KeyMsg{Type: tea.KeyPgDown}
)

// readAll scrolls the open overlay of m with j from its window down to
// the end, and returns the text seen on the way.
func readAll(t *testing.T, m *Model) string {
	t.Helper()
	var seen []string
	prev := -1
	for i := 0; i < 1000; i++ {
		rows := overlayRows(t, m.View())
		off := m.fullNarration.sc.off
		if off == prev {
			return strings.Join(seen, "")
		}
		// the rows not seen yet: the window moved by off-prev rows
		if prev < 0 {
			seen = append(seen, rows...)
		} else {
			seen = append(seen, rows[len(rows)-(off-prev):]...)
		}
		prev = off
		m.Update(keyMsg("j"))
	}
	t.Fatalf("the overlay scrolled for 1000 rows")
	return ""
}

// TestNarrationOverlay: d opens the step's whole narration in the
// chosen language; j/↓ and page down scroll it, k goes back; d or esc
// close it.
func TestNarrationOverlay(t *testing.T) {
	for _, sz := range sizes {
		for _, lang := range []string{"en", "zh"} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz.w, sz.h, lang), func(t *testing.T) {
				m, _ := startedModel(t, sz.w, sz.h, lang)
				m.Update(stepMsg{gen: m.gen, up: hugeStep})
				if m.overlay != overlayNone {
					t.Fatalf("overlay = %d before d, want none", m.overlay)
				}
				m.Update(keyMsg("d"))
				if m.overlay != overlayNarration {
					t.Fatalf("overlay = %d after d, want the narration", m.overlay)
				}
				v := m.View()
				checkSize(t, v, sz.w, sz.h)
				if len(m.fullNarration.body) <= m.fullNarration.sc.height {
					t.Fatalf("the narration (%d rows) fits the window (%d rows): nothing to scroll", len(m.fullNarration.body), m.fullNarration.sc.height)
				}
				title := fmt.Sprintf(tr(lang, "step_of"), 3, 7)
				if !strings.Contains(splitLines(v)[headerRows+1], title) {
					t.Errorf("the overlay's title lacks %q:\n%s", title, v)
				}
				if got, want := readAll(t, m), squash(hugeStep.Narration.In(lang)); squash(got) != want {
					t.Errorf("the overlay shows\n%s\nwant the whole narration\n%s", got, want)
				}

				// k goes back up, page down jumps a window
				m.fullNarration.sc.top()
				m.Update(keyDown)
				m.Update(keyDown)
				m.Update(keyMsg("k"))
				if m.fullNarration.sc.off != 1 {
					t.Errorf("offset after ↓ ↓ k = %d, want 1", m.fullNarration.sc.off)
				}
				m.Update(keyPgDown)
				if want := min(1+m.fullNarration.sc.height, len(m.fullNarration.body)-m.fullNarration.sc.height); m.fullNarration.sc.off != want {
					t.Errorf("offset after page down = %d, want %d", m.fullNarration.sc.off, want)
				}

				m.Update(keyMsg("d"))
				if m.overlay != overlayNone {
					t.Errorf("overlay = %d after a second d, want none", m.overlay)
				}
				m.Update(keyMsg("d"))
				if m.fullNarration.sc.off != 0 {
					t.Errorf("the overlay opens at offset %d, want the top", m.fullNarration.sc.off)
				}
				m.Update(keyEsc)
				if m.overlay != overlayNone {
					t.Errorf("overlay = %d after esc, want none", m.overlay)
				}
			})
		}
	}
}

// TestNarrationOverlayKeys: while the overlay is open, L switches its
// text to the other language and it stays open, space still releases
// the gate, and the keys of the panes close it.
func TestNarrationOverlayKeys(t *testing.T) {
	m, s := startedModel(t, 80, 24, "en")
	m.Update(stepMsg{gen: m.gen, up: longStep})
	m.Update(keyMsg("d"))
	m.Update(keyMsg("L"))
	if m.overlay != overlayNarration {
		t.Fatalf("L closed the overlay")
	}
	if rows := overlayRows(t, m.View()); !strings.HasPrefix(squash(longStep.Narration.Zh), squash(strings.Join(rows, ""))) {
		t.Errorf("after L the overlay shows\n%s\nwant the Chinese narration", strings.Join(rows, "\n"))
	}
	if bar := splitLines(m.View())[23]; !strings.Contains(bar, "d/esc 关闭") || !strings.Contains(bar, "滚动") {
		t.Errorf("the help bar of the overlay is %q, want its scroll and close keys", bar)
	}

	// space releases what the gate holds, as it does without the overlay
	b := flow.Boundary{Point: flow.PointNextStep, Component: "scenario", Object: flow.ObjectRef{Name: "3/7 long"}}
	released := make(chan error, 1)
	go func() { released <- s.gate.Wait(m.sessions.ctx, b) }()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := s.gate.WaitHeld(ctx); err != nil {
		t.Fatalf("the gate does not hold: %v", err)
	}
	m.Update(keyMsg(" "))
	if err := <-released; err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if m.overlay != overlayNarration {
		t.Errorf("space closed the overlay")
	}

	m.Update(keyMsg("tab"))
	if m.overlay != overlayNone || m.focus != focusEvidence {
		t.Errorf("after tab overlay = %d, focus = %d; want none and the evidence", m.overlay, m.focus)
	}
}

// TestNarrationGrowsWhenHeld: in step mode, while the gate holds the
// scenario before a step's action, the narration takes the rows the
// pipeline leaves; otherwise it keeps its two rows at 80×24.
func TestNarrationGrowsWhenHeld(t *testing.T) {
	hold := func(released bool) flowEventsMsg {
		return flowEventsMsg{evs: []flow.Event{{Component: "gate", Time: t0, Hold: &flow.Hold{
			Boundary: flow.Boundary{Point: flow.PointNextStep, Component: "scenario", Object: flow.ObjectRef{Name: "3/7 long"}},
			Released: released}}}}
	}
	for _, lang := range []string{"en", "zh"} {
		t.Run(lang, func(t *testing.T) {
			m, _ := startedModel(t, 80, 24, lang)
			m.Update(flowEventsMsg{gen: m.gen, evs: upTo(flow.StageAdmitted)}) // a pod: the pipeline shows
			m.Update(stepMsg{gen: m.gen, up: longStep})
			if n := m.narrationText(); n != narrationRows-1 {
				t.Errorf("before the hold the narration has %d rows, want %d", n, narrationRows-1)
			}
			msg := hold(false)
			msg.gen = m.gen
			m.Update(msg)
			v := m.View()
			checkSize(t, v, 80, 24)
			if n := m.narrationText(); n != 7 {
				t.Errorf("held before the step, the narration has %d rows, want 7:\n%s", n, v)
			}
			rows := splitLines(v)
			if !strings.Contains(rows[headerRows+7], "‖") {
				t.Errorf("the hold line is not under the narration:\n%s", v)
			}
			if !strings.Contains(v, "8 "+stageShort[flow.StageStatusPersisted].In(lang)) || !strings.Contains(v, "╰") {
				t.Errorf("the pipeline lost rows:\n%s", v)
			}
			want := " " + fmt.Sprintf(tr(lang, "narr_more"), "d")
			if last := strings.TrimRight(rows[headerRows+6], " "); !strings.HasSuffix(last, "…"+want) {
				t.Errorf("the last narration row %q does not end in …%q", last, want)
			}

			m.Update(keyMsg("p")) // auto mode: the hold is not for reading
			if n := m.narrationText(); n != narrationRows-1 {
				t.Errorf("in auto mode the narration has %d rows, want %d", n, narrationRows-1)
			}
			m.Update(keyMsg("p"))
			msg = hold(true)
			msg.gen = m.gen
			m.Update(msg)
			if n := m.narrationText(); n != narrationRows-1 {
				t.Errorf("after the hold the narration has %d rows, want %d", n, narrationRows-1)
			}
		})
	}
}

// TestWrapProse: prose wraps at spaces and between CJK characters,
// counting double-width characters as two cells, never cuts a word
// that fits a line, and keeps closing punctuation off the start of a
// line.
func TestWrapProse(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
	}{
		{"english", longStep.Narration.En, 80},
		{"chinese", longStep.Narration.Zh, 80},
		{"chinese narrow", longStep.Narration.Zh, 31},
		{"chinese odd width", "第 1/7 步 · " + longStep.Narration.Zh, 77},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapProse(tt.text, tt.width)
			if squash(strings.Join(got, "")) != squash(tt.text) {
				t.Fatalf("wrapping lost or changed text:\n%s", strings.Join(got, "\n"))
			}
			for i, line := range got {
				w := ansi.StringWidth(line)
				if w > tt.width {
					t.Errorf("line %d is %d cells, wider than %d: %q", i, w, tt.width, line)
				}
				if r, _ := firstRune(line); strings.ContainsRune("，。、；：！？）", r) {
					t.Errorf("line %d starts with closing punctuation: %q", i, line)
				}
				if i == len(got)-1 {
					continue
				}
				// a line ends only when the next token does not fit: a
				// word of the text (at most 30 cells here) or a CJK
				// character with its punctuation
				if next := firstToken(got[i+1]); w+1+ansi.StringWidth(next) <= tt.width {
					t.Errorf("line %d (%d cells) ends early: %q would fit from the next line", i, w, next)
				}
			}
			for _, word := range strings.Fields(tt.text) {
				if ansi.StringWidth(word) != len(word) || ansi.StringWidth(word) > tt.width {
					continue // CJK text, or a word that must be cut
				}
				if !strings.Contains(strings.Join(got, "\n"), word) {
					t.Errorf("the word %q was cut in two", word)
				}
			}
		})
	}
}

// firstToken is what wrapProse could have put at the end of the line
// before: a line's first token.
func firstToken(line string) string {
	toks := proseTokens(line)
	if len(toks) == 0 {
		return ""
	}
	return toks[0].text
}

// TestCutProse: the narration's cut row ends at a break, not inside a
// word.
func TestCutProse(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  string
	}{
		{"the scheduler filters the nodes", 17, "the scheduler"},
		{"the scheduler filters the nodes", 40, "the scheduler filters the nodes"},
		{"调度器先过滤节点，再给剩下的打分", 10, "调度器先过"},
		{"写入 etcd 之前", 8, "写入"},
	}
	for _, tt := range tests {
		if got := cutProse(tt.s, tt.width); got != tt.want {
			t.Errorf("cutProse(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

// TestNarrationOverlayAtTheEnd: a scenario that ends while the learner
// reads the narration leaves it open; closing it shows the summary.
func TestNarrationOverlayAtTheEnd(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	m.Update(stepMsg{gen: m.gen, up: longStep})
	m.Update(keyMsg("d"))
	m.Update(sessionDoneMsg{gen: m.gen})
	if m.overlay != overlayNarration {
		t.Fatalf("overlay = %d when the scenario ended, want the narration still", m.overlay)
	}
	m.Update(keyEsc)
	if m.overlay != overlaySummary {
		t.Errorf("overlay = %d after esc, want the summary", m.overlay)
	}
	if v := m.View(); !strings.Contains(v, tr("en", "summary")) {
		t.Errorf("no summary after closing the narration:\n%s", v)
	}
}

// TestNarrationGolden renders the narration overlay of a step too long
// for it, scrolled one row, in both languages at 80×24 and 120×40.
func TestNarrationGolden(t *testing.T) {
	for _, sz := range sizes {
		for _, lang := range []string{"en", "zh"} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz.w, sz.h, lang), func(t *testing.T) {
				m, _ := startedModel(t, sz.w, sz.h, lang)
				m.Update(stepMsg{gen: m.gen, up: hugeStep})
				m.Update(keyMsg("d"))
				m.Update(keyMsg("j"))
				view := m.View()
				checkSize(t, view, sz.w, sz.h)
				golden.RequireEqual(t, []byte(view))
			})
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
