package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// keyMsg is the key press a terminal sends for s: a key's name as
// tea.KeyMsg.String spells it, or the runes typed.
func keyMsg(s string) tea.KeyMsg {
	switch s {
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestGateKeys(t *testing.T) {
	m, s := startedModel(t, 120, 40, "en")
	g := s.Gate()

	m.Update(keyMsg("p"))
	if got := g.Mode(); got != flow.ModeAuto {
		t.Errorf("after p: gate mode = %v, want auto", got)
	}
	m.Update(keyMsg("p"))
	if got := g.Mode(); got != flow.ModeStep {
		t.Errorf("after p p: gate mode = %v, want step", got)
	}
	m.Update(keyMsg("+"))
	if got, want := g.Delay(), AutoDelay(2); got != want {
		t.Errorf("after +: gate delay = %v, want %v", got, want)
	}
	m.Update(keyMsg("-"))
	m.Update(keyMsg("-"))
	if got, want := g.Delay(), AutoDelay(0.5); got != want {
		t.Errorf("after + - -: gate delay = %v, want %v", got, want)
	}

	// space lets the held boundary go, exactly as Advance does
	released := make(chan error, 1)
	go func() {
		released <- g.Wait(context.Background(), flow.Boundary{Point: flow.PointBeforeScheduling, Component: "scheduler"})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatalf("the boundary was never held: %v", err)
	}
	m.Update(keyMsg(" "))
	select {
	case err := <-released:
		if err != nil {
			t.Errorf("Wait = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("space did not release the held boundary")
	}
}

func TestLanguageKey(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	feed(m, flow.StageScheduled)
	m.Update(keyMsg("L"))
	if v := m.View(); !strings.Contains(v, "调度绑定") || !strings.Contains(v, "单步") {
		t.Errorf("after L the view is not in Chinese:\n%s", v)
	}
	m.Update(keyMsg("L"))
	if v := m.View(); !strings.Contains(v, "scheduled") {
		t.Errorf("after L L the view is not in English:\n%s", v)
	}
}

// keyCase is one key press and the effect it must have.
type keyCase struct {
	name string
	// setup brings the model (stage 4 of the fixture reached, no
	// overlay, the pipeline focused) to where the key is pressed.
	setup func(m *Model)
	key   string
	// quit: the key ends the program; restart: it starts a session
	// (m.gen grows by one).
	quit, restart bool
	// check returns what is wrong with m after the key, or "".
	check func(m *Model) string
}

// TestKeyPress: each key has its effect in each overlay; the keys an
// overlay does not take act on the main screen. The key goes through
// keyPress and then refresh, as Update sends it.
func TestKeyPress(t *testing.T) {
	var tests []keyCase
	for _, group := range [][]keyCase{screenKeyCases, helpKeyCases, pickerKeyCases, narrationKeyCases, summaryKeyCases} {
		tests = append(tests, group...)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := startedModel(t, 120, 40, "en")
			feed(m, flow.StageScheduled)
			if tt.setup != nil {
				tt.setup(m)
				m.refresh()
			}
			gen := m.gen
			cmd, quit := m.keyPress(keyMsg(tt.key))
			if quit != tt.quit {
				t.Fatalf("quit = %v, want %v", quit, tt.quit)
			}
			if quit {
				if _, ok := cmd().(tea.QuitMsg); !ok {
					t.Errorf("a quitting key's command is not tea.Quit")
				}
				return
			}
			m.refresh()
			if restarted := m.gen == gen+1 && cmd != nil; restarted != tt.restart || (!tt.restart && m.gen != gen) {
				t.Errorf("generation %d → %d (command %v), want a restart: %v", gen, m.gen, cmd != nil, tt.restart)
			}
			if tt.check != nil {
				if msg := tt.check(m); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// overlayIs checks that o is open.
func overlayIs(o overlay) func(*Model) string {
	return func(m *Model) string {
		if m.overlay != o {
			return fmt.Sprintf("overlay = %d, want %d", m.overlay, o)
		}
		return ""
	}
}

// checkAll runs every check and returns the first complaint.
func checkAll(checks ...func(*Model) string) func(*Model) string {
	return func(m *Model) string {
		for _, c := range checks {
			if msg := c(m); msg != "" {
				return msg
			}
		}
		return ""
	}
}

// langIs checks the language is lang, key help included.
func langIs(lang string) func(*Model) string {
	return func(m *Model) string {
		quit := m.shared.keys.Quit.Help().Desc
		if m.shared.lang != lang || quit != newKeyMap(lang).Quit.Help().Desc {
			return fmt.Sprintf("language %q (q's help %q), want %q with its key help", m.shared.lang, quit, lang)
		}
		return ""
	}
}

// stageIs checks the selected stage and whether the learner chose it.
func stageIs(s flow.Stage, pinned bool) func(*Model) string {
	return func(m *Model) string {
		if m.selected != s || m.stagePinned != pinned {
			return fmt.Sprintf("stage %d (pinned %v), want %d (pinned %v)", m.selected, m.stagePinned, s, pinned)
		}
		return ""
	}
}

// focusIs checks the focus and the pane shown in the lower left.
func focusIs(f, lowerLeft focus) func(*Model) string {
	return func(m *Model) string {
		if m.focus != f || m.lowerLeft != lowerLeft {
			return fmt.Sprintf("focus %d (lower left %d), want %d (lower left %d)", m.focus, m.lowerLeft, f, lowerLeft)
		}
		return ""
	}
}

// speedIs checks the speed, the model's and the gate's delay.
func speedIs(speed float64) func(*Model) string {
	return func(m *Model) string {
		if m.speed != speed || m.sess.Gate().Delay() != AutoDelay(speed) {
			return fmt.Sprintf("speed %g (gate delay %v), want %g (%v)", m.speed, m.sess.Gate().Delay(), speed, AutoDelay(speed))
		}
		return ""
	}
}

// scenarioIs checks the scenario the model shows.
func scenarioIs(name string) func(*Model) string {
	return func(m *Model) string {
		if m.scenario.Name != name {
			return fmt.Sprintf("scenario %q, want %q", m.scenario.Name, name)
		}
		return ""
	}
}

// tabMoved checks the evidence tab is d tabs on from stage 4's own, and
// pinned.
func tabMoved(d tab) func(*Model) string {
	return func(m *Model) string {
		want := (bestTab(m.tracks.followed(), flow.StageScheduled) + d) % numTabs
		if m.evidence.tab != want || !m.tabPinned {
			return fmt.Sprintf("tab %d (pinned %v), want %d pinned", m.evidence.tab, m.tabPinned, want)
		}
		return ""
	}
}

// withOverlay opens o before the key.
func withOverlay(o overlay) func(*Model) { return func(m *Model) { m.overlay = o } }

var screenKeyCases = []keyCase{
	{name: "screen/q quits", key: "q", quit: true},
	{name: "screen/ctrl+c quits", key: "ctrl+c", quit: true},
	{name: "screen/? opens the help", key: "?", check: overlayIs(overlayHelp)},
	{name: "screen/d opens the narration at its top", key: "d",
		setup: func(m *Model) { m.fullNarration.sc.off = 3 },
		check: checkAll(overlayIs(overlayNarration), func(m *Model) string {
			if m.fullNarration.sc.off != 0 {
				return fmt.Sprintf("narration offset %d, want 0", m.fullNarration.sc.off)
			}
			return ""
		})},
	{name: "screen/s opens the picker on the current scenario", key: "s",
		setup: func(m *Model) { m.picker.cursor = 2 },
		check: checkAll(overlayIs(overlayPicker), func(m *Model) string {
			if m.picker.cursor != 0 {
				return fmt.Sprintf("picker cursor %d, want 0 (pod-create)", m.picker.cursor)
			}
			return ""
		})},
	{name: "screen/r restarts the scenario", key: "r", restart: true, check: checkAll(overlayIs(overlayNone), scenarioIs("pod-create"))},
	{name: "screen/L switches to Chinese", key: "L", check: langIs("zh")},
	{name: "screen/p switches the gate to auto", key: "p", check: func(m *Model) string {
		if m.mode != flow.ModeAuto || m.sess.Gate().Mode() != flow.ModeAuto {
			return fmt.Sprintf("mode %v (gate %v), want auto", m.mode, m.sess.Gate().Mode())
		}
		return ""
	}},
	{name: "screen/+ is faster", key: "+", check: speedIs(2)},
	{name: "screen/= is faster", key: "=", check: speedIs(2)},
	{name: "screen/- is slower", key: "-", check: speedIs(0.5)},
	{name: "screen/_ is slower", key: "_", check: speedIs(0.5)},
	{name: "screen/tab focuses the evidence", key: "tab", check: focusIs(focusEvidence, focusCluster)},
	{name: "screen/tab from the evidence focuses the event log", key: "tab",
		setup: func(m *Model) { m.setFocus(focusEvidence) }, check: focusIs(focusEvents, focusEvents)},
	{name: "screen/shift+tab from the pipeline wraps to the cluster view", key: "shift+tab", check: focusIs(focusCluster, focusCluster)},
	{name: "screen/shift+tab from the event log focuses the evidence", key: "shift+tab",
		setup: func(m *Model) { m.setFocus(focusEvents) }, check: focusIs(focusEvidence, focusEvents)},
	{name: "screen/← selects the stage before", key: "left", check: stageIs(flow.StageSchedulerNotified, true)},
	{name: "screen/→ selects the stage after", key: "right", check: stageIs(flow.StageBindingPersisted, true)},
	{name: "screen/h selects the stage before", key: "h", check: stageIs(flow.StageSchedulerNotified, true)},
	{name: "screen/→ back on the pod's stage follows it again", key: "right",
		setup: func(m *Model) { m.moveStage(false) }, check: stageIs(flow.StageScheduled, false)},
	{name: "screen/↓ in the pipeline selects the stage after", key: "down", check: stageIs(flow.StageBindingPersisted, true)},
	{name: "screen/k in the pipeline selects the stage before", key: "k", check: stageIs(flow.StageSchedulerNotified, true)},
	{name: "screen/↓ in the evidence scrolls it, the stage stays", key: "down",
		// stage 1's request trace is longer than the pane
		setup: func(m *Model) { m.setFocus(focusEvidence); m.selected, m.stagePinned = flow.StageAdmitted, true },
		check: checkAll(stageIs(flow.StageAdmitted, true), func(m *Model) string {
			if m.evidence.sc.off != 1 {
				return fmt.Sprintf("evidence offset %d (%d lines in %d rows), want 1", m.evidence.sc.off, len(m.evidence.body), m.evidence.sc.height)
			}
			return ""
		})},
	{name: "screen/] is the next tab", key: "]", check: tabMoved(1)},
	{name: "screen/[ is the tab before", key: "[", check: tabMoved(numTabs - 1)},
	{name: "screen/enter does nothing", key: "enter", check: checkAll(overlayIs(overlayNone), stageIs(flow.StageScheduled, false))},
}

var helpKeyCases = []keyCase{
	{name: "help/any key closes it", key: "x", setup: withOverlay(overlayHelp), check: overlayIs(overlayNone)},
	{name: "help/? closes it", key: "?", setup: withOverlay(overlayHelp), check: overlayIs(overlayNone)},
	{name: "help/space closes it", key: " ", setup: withOverlay(overlayHelp), check: overlayIs(overlayNone)},
	{name: "help/q quits", key: "q", setup: withOverlay(overlayHelp), quit: true},
	{name: "help/L switches the language and stays", key: "L", setup: withOverlay(overlayHelp), check: checkAll(overlayIs(overlayHelp), langIs("zh"))},
}

var pickerKeyCases = []keyCase{
	{name: "picker/esc goes back to the running scenario", key: "esc", setup: withOverlay(overlayPicker), check: overlayIs(overlayNone)},
	{name: "picker/s goes back to the running scenario", key: "s", setup: withOverlay(overlayPicker), check: overlayIs(overlayNone)},
	{name: "picker/esc stays when nothing runs", key: "esc",
		setup: func(m *Model) { m.overlay, m.sess, m.starting = overlayPicker, nil, false }, check: overlayIs(overlayPicker)},
	{name: "picker/esc goes back while a scenario starts", key: "esc",
		setup: func(m *Model) { m.overlay, m.sess, m.starting = overlayPicker, nil, true }, check: overlayIs(overlayNone)},
	{name: "picker/↓ moves the cursor", key: "down", setup: withOverlay(overlayPicker), check: checkAll(overlayIs(overlayPicker), func(m *Model) string {
		if m.picker.cursor != 1 {
			return fmt.Sprintf("picker cursor %d, want 1", m.picker.cursor)
		}
		return ""
	})},
	{name: "picker/enter starts the chosen scenario", key: "enter", restart: true,
		setup: func(m *Model) { m.overlay, m.picker.cursor = overlayPicker, 2 },
		check: checkAll(overlayIs(overlayNone), scenarioIs("watch-mechanics"))},
	{name: "picker/q quits", key: "q", setup: withOverlay(overlayPicker), quit: true},
	{name: "picker/L switches the language and stays", key: "L", setup: withOverlay(overlayPicker), check: checkAll(overlayIs(overlayPicker), langIs("zh"))},
	{name: "picker/p is not the gate's", key: "p", setup: withOverlay(overlayPicker), check: func(m *Model) string {
		if m.mode != flow.ModeStep {
			return fmt.Sprintf("mode %v, want step still", m.mode)
		}
		return ""
	}},
}

// narrationOpen opens the narration overlay on a narration longer than
// its window.
func narrationOpen(m *Model) {
	m.Update(stepMsg{gen: m.gen, up: hugeStep})
	m.overlay = overlayNarration
}

var narrationKeyCases = []keyCase{
	{name: "narration/d closes it", key: "d", setup: narrationOpen, check: overlayIs(overlayNone)},
	{name: "narration/esc closes it", key: "esc", setup: narrationOpen, check: overlayIs(overlayNone)},
	{name: "narration/esc shows the summary due", key: "esc",
		setup: func(m *Model) { narrationOpen(m); m.summaryDue = true },
		check: checkAll(overlayIs(overlaySummary), func(m *Model) string {
			if m.summaryDue {
				return "the summary is still due"
			}
			return ""
		})},
	{name: "narration/↓ scrolls it", key: "down", setup: narrationOpen, check: checkAll(overlayIs(overlayNarration), func(m *Model) string {
		if m.fullNarration.sc.off != 1 {
			return fmt.Sprintf("narration offset %d, want 1", m.fullNarration.sc.off)
		}
		return ""
	})},
	{name: "narration/tab closes it and moves the focus", key: "tab", setup: narrationOpen,
		check: checkAll(overlayIs(overlayNone), focusIs(focusEvidence, focusCluster))},
	{name: "narration/← closes it and selects the stage before", key: "left", setup: narrationOpen,
		check: checkAll(overlayIs(overlayNone), stageIs(flow.StageSchedulerNotified, true))},
	{name: "narration/p switches the gate and stays", key: "p", setup: narrationOpen, check: checkAll(overlayIs(overlayNarration), func(m *Model) string {
		if m.mode != flow.ModeAuto {
			return fmt.Sprintf("mode %v, want auto", m.mode)
		}
		return ""
	})},
	{name: "narration/? opens the help", key: "?", setup: narrationOpen, check: overlayIs(overlayHelp)},
	{name: "narration/q quits", key: "q", setup: narrationOpen, quit: true},
}

var summaryKeyCases = []keyCase{
	{name: "summary/enter starts the next scenario", key: "enter", setup: withOverlay(overlaySummary), restart: true,
		check: checkAll(overlayIs(overlayNone), scenarioIs("request-lifecycle"))},
	{name: "summary/enter after the last scenario closes it", key: "enter",
		setup: func(m *Model) { m.overlay, m.scenario = overlaySummary, m.info("watch-mechanics") },
		check: checkAll(overlayIs(overlayNone), scenarioIs("watch-mechanics"))},
	{name: "summary/esc closes it", key: "esc", setup: withOverlay(overlaySummary), check: overlayIs(overlayNone)},
	{name: "summary/r replays the scenario", key: "r", setup: withOverlay(overlaySummary), restart: true,
		check: checkAll(overlayIs(overlayNone), scenarioIs("pod-create"))},
	{name: "summary/s opens the picker", key: "s", setup: withOverlay(overlaySummary), check: overlayIs(overlayPicker)},
	{name: "summary/q quits", key: "q", setup: withOverlay(overlaySummary), quit: true},
}

// TestNextSpeed: + and - step through speeds; the ends stay, and from no
// delay (0) + goes to the slowest and - to the fastest.
func TestNextSpeed(t *testing.T) {
	tests := []struct {
		cur    float64
		faster bool
		want   float64
	}{
		{1, true, 2}, {1, false, 0.5},
		{16, true, 16}, {0.25, false, 0.25},
		{3, true, 4}, {3, false, 2},
		{0, true, 0.25}, {0, false, 16},
		{100, false, 16}, {0.1, true, 0.25},
	}
	for _, tt := range tests {
		if got := nextSpeed(tt.cur, tt.faster); got != tt.want {
			t.Errorf("nextSpeed(%g, faster %v) = %g, want %g", tt.cur, tt.faster, got, tt.want)
		}
	}
}
