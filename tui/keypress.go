package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// This file says what a key press does. The open overlay sees the key
// first: the picker and the help take every key; the narration and the
// summary take theirs and leave the others to the main screen. Update
// calls keyPress; the bindings are in keymap.go.

// keyPress handles a key press; quit is true when the program must end
// (cmd is then tea.Quit).
func (m *Model) keyPress(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	if msg.String() == "ctrl+c" {
		return tea.Quit, true
	}
	handled := false
	switch m.overlay {
	case overlayPicker:
		return m.pickerKey(msg)
	case overlayHelp:
		return m.helpKey(msg)
	case overlayNodes:
		return m.nodesKey(msg)
	case overlayNarration:
		cmd, handled = m.narrationKey(msg)
	case overlaySummary:
		cmd, handled = m.summaryKey(msg)
	case overlayQuestion:
		cmd, handled = m.questionKey(msg)
	}
	if handled {
		return cmd, false
	}
	return m.screenKey(msg)
}

// pickerKey handles every key while the picker is open: enter starts the
// scenario under the cursor; esc and s close the picker when a scenario
// runs or starts; ↑/↓ move the cursor.
func (m *Model) pickerKey(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Enter):
		if it, ok := m.picker.chosen(); ok {
			m.overlay = overlayNone
			return m.start(it.Name), false
		}
	case key.Matches(msg, k.Back), key.Matches(msg, k.Picker):
		if m.sess != nil || m.starting {
			m.overlay = overlayNone
		}
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Lang):
		m.toggleLang()
	default:
		return m.picker.Update(msg), false
	}
	return nil, false
}

// helpKey handles every key while the help is open: q quits, L changes
// the language, any other key closes the help.
func (m *Model) helpKey(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Lang):
		m.toggleLang()
	default:
		m.overlay = overlayNone
	}
	return nil, false
}

// narrationKey handles the narration overlay's keys: d and esc close it
// (showing the summary if the scenario ended meanwhile), ↑/↓ and page
// up/down scroll it. The panes' keys close it and are not handled here,
// so that they act on the panes; the others (space, p, +/-, L, ?, s, r,
// q) are not handled either and do what they always do.
func (m *Model) narrationKey(msg tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Narration), key.Matches(msg, k.Back):
		m.overlay = overlayNone
		if m.summaryDue {
			m.overlay, m.summaryDue = overlaySummary, false
		}
		return nil, true
	case key.Matches(msg, k.Up), key.Matches(msg, k.Down), msg.String() == "pgup", msg.String() == "pgdown":
		return m.fullNarration.Update(msg), true
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane), key.Matches(msg, k.Left),
		key.Matches(msg, k.Right), key.Matches(msg, k.PrevTab), key.Matches(msg, k.NextTab):
		m.overlay = overlayNone
	}
	return nil, false
}

// summaryKey handles the summary's keys: enter starts the next scenario
// in the list (or closes the summary after the last), esc closes it. The
// others are the main screen's.
func (m *Model) summaryKey(msg tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Enter):
		m.overlay = overlayNone
		if next, ok := m.nextScenario(); ok {
			return m.start(next.Name), true
		}
		return nil, true
	case key.Matches(msg, k.Back):
		m.overlay = overlayNone
		return nil, true
	}
	return nil, false
}

// screenKey handles a key of the main screen: the keys that quit, open
// an overlay, restart or change the language, then the gate's keys, then
// the panes'.
func (m *Model) screenKey(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Help):
		m.overlay = overlayHelp
	case key.Matches(msg, k.Narration):
		m.overlay = overlayNarration
		m.fullNarration.sc.top()
	case key.Matches(msg, k.Picker):
		m.picker.choose(m.scenario.Name)
		m.overlay = overlayPicker
	case key.Matches(msg, k.Restart):
		m.overlay = overlayNone
		return m.start(m.scenario.Name), false
	case key.Matches(msg, k.Lang):
		m.toggleLang()
	case key.Matches(msg, k.Kubelet):
		return m.openNodes(), false
	default:
		if m.questionScreenKey(msg) || m.gateKey(msg) || m.presentKey(msg) {
			return nil, false
		}
		return m.paneKey(msg), false
	}
	return nil, false
}

// questionScreenKey handles the keys of a question asked at the gate
// while its overlay is hidden: a digit answers it, a shows it again, the
// advance key skips it (and lets the gate go, as always). It reports
// whether msg was one of them.
func (m *Model) questionScreenKey(msg tea.KeyMsg) bool {
	q := m.asking()
	if q == nil {
		return false
	}
	k := m.shared.keys
	if c, ok := choiceKey(msg, q); ok {
		m.answer(c)
		return true
	}
	switch {
	case key.Matches(msg, k.Answer):
		m.overlay = overlayQuestion
	case key.Matches(msg, k.Next):
		m.answer(-1)
	default:
		return false
	}
	return true
}

// gateKey handles the gate's keys (space lets the held boundary go, p
// switches auto and step mode, + and - change the speed) and reports
// whether msg was one of them. The model keeps mode and speed for the
// next session; the gate of the current one follows at once.
func (m *Model) gateKey(msg tea.KeyMsg) bool {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Next):
		if m.sess != nil {
			m.sess.Gate().Advance()
		}
	case key.Matches(msg, k.Mode):
		if m.mode == flow.ModeStep {
			m.mode = flow.ModeAuto
		} else {
			m.mode = flow.ModeStep
		}
		if m.sess != nil {
			m.sess.Gate().SetMode(m.mode)
		}
	case key.Matches(msg, k.Faster), key.Matches(msg, k.Slower):
		m.speed = nextSpeed(m.speed, key.Matches(msg, k.Faster))
		if m.sess != nil {
			m.sess.Gate().SetDelay(AutoDelay(m.speed))
		}
	default:
		return false
	}
	return true
}

// paneKey handles the keys that move between panes, stages and evidence
// tabs; ↑/↓ choose the stage when the pipeline has the focus, and any
// other key goes to the focused pane.
func (m *Model) paneKey(msg tea.KeyMsg) tea.Cmd {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane):
		m.cycleFocus(key.Matches(msg, k.PrevPane))
	case key.Matches(msg, k.Left), key.Matches(msg, k.Right):
		m.moveStage(key.Matches(msg, k.Right))
	case key.Matches(msg, k.PrevTab), key.Matches(msg, k.NextTab):
		d := tab(1)
		if key.Matches(msg, k.PrevTab) {
			d = numTabs - 1
		}
		m.evidence.tab = (m.evidence.tab + d) % numTabs
		m.tabPinned = true
	case m.activeFocus() == focusPipeline && (key.Matches(msg, k.Up) || key.Matches(msg, k.Down)):
		m.moveStage(key.Matches(msg, k.Down))
	default:
		return m.focused().Update(msg)
	}
	return nil
}

// toggleLang switches between English and Chinese, key help included.
func (m *Model) toggleLang() {
	if m.shared.lang == "zh" {
		m.shared.lang = "en"
	} else {
		m.shared.lang = "zh"
	}
	m.shared.keys = newKeyMap(m.shared.lang)
}

// moveStage selects the next or the previous stage; selecting the
// current stage follows it again.
func (m *Model) moveStage(forward bool) {
	s := m.selected
	if forward {
		s = min(s+1, flow.StageStatusPersisted)
	} else {
		s = max(s-1, flow.StageAdmitted)
	}
	m.selected, m.stagePinned, m.tabPinned = s, true, false
	if t := m.tracks.followed(); t != nil && s == t.reached() {
		m.stagePinned = false
	}
}

// speeds are the steps of + and -.
var speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16}

// nextSpeed is the speed after cur, one step faster or slower in speeds:
// + from no delay (0) goes to the slowest, - to the fastest; the ends
// stay where they are.
func nextSpeed(cur float64, faster bool) float64 {
	if faster {
		for _, s := range speeds {
			if s > cur {
				return s
			}
		}
		return speeds[len(speeds)-1]
	}
	if cur == 0 {
		return speeds[len(speeds)-1]
	}
	for i := len(speeds) - 1; i >= 0; i-- {
		if speeds[i] < cur {
			return speeds[i]
		}
	}
	return speeds[0]
}
