package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// Sizes of the fixed parts of the screen.
const (
	headerRows    = 2
	narrationRows = 3 // at least: two of text and the action's
	// maxNarration caps the narration's text rows on tall screens.
	maxNarration = 8
	helpRows     = 1
	pipelineRows = 8 + 2 // eight stages and the border
	wideWidth    = 110   // from here on the event log gets its own pane
)

// layout gives each pane its size for the current window. Without a
// pod (podPane), the evidence takes the pipeline's width.
func (m *Model) layout() {
	body := m.bodyRows()
	if !m.podPane() {
		m.layoutPodless(body)
		return
	}
	left := 30
	if m.width >= wideWidth {
		left = 40
	}
	right := max(m.width-left, 20)
	m.pipeline.SetSize(left-2, pipelineRows-2)
	lowerH := max(body-pipelineRows-2, 1)
	m.cluster.SetSize(left-2, lowerH)
	if m.width >= wideWidth {
		evH := body * 3 / 5
		m.evidence.SetSize(right-2, evH-2)
		m.events.SetSize(right-2, body-evH-2)
	} else {
		m.evidence.SetSize(right-2, body-2)
		m.events.SetSize(left-2, lowerH)
	}
	m.layoutOverlays(body)
}

// layoutPodless sizes the panes of a run without pods: the evidence the
// whole width, over the event log on wide screens (the pipeline and the
// cluster view are not shown).
func (m *Model) layoutPodless(body int) {
	w := max(m.width, 22)
	if m.width >= wideWidth {
		evH := body * 3 / 5
		m.evidence.SetSize(w-2, evH-2)
		m.events.SetSize(w-2, body-evH-2)
	} else {
		m.evidence.SetSize(w-2, body-2)
	}
	m.layoutOverlays(body)
}

// layoutOverlays sizes what covers the panes, and the help.
func (m *Model) layoutOverlays(body int) {
	m.picker.SetSize(max(m.width-4, 20), max(body-2, 3))
	m.fullNarration.SetSize(max(m.width-2, 20), max(body-2, 1))
	m.nodes.SetSize(max(m.width-2, 20), max(body-2, 1))
	m.help.Width = m.width
}

// podPane reports whether the pipeline of the pods' eight stages is
// shown: once the run has had a pod's staged flow event. A lesson
// without pods (the server chain, etcd's history, RBAC) gives its room
// to the evidence.
func (m *Model) podPane() bool {
	return len(m.tracks.order) > 0
}

// lowerShown reports whether the pane under the pipeline has rows (its
// borders and one more): the presenter's narration may take them.
func (m *Model) lowerShown() bool {
	return m.bodyRows()-pipelineRows >= 3
}

// minBody is the fewest rows the panes get: the pipeline's, unless a
// presenter's run has no pod to show (then the narration may take more).
func (m *Model) minBody() int {
	if m.present && !m.podPane() {
		return presentMinBody
	}
	return pipelineRows
}

// bodyRows is the height left for the panes.
func (m *Model) bodyRows() int {
	return max(m.height-headerRows-m.narrationText()-1-helpRows, m.minBody())
}

// narrationText is how many rows the narration's text gets: what it
// needs, at least two, up to narrationLimit; none while the narration
// overlay shows all of it.
func (m *Model) narrationText() int {
	if m.overlay == overlayNarration {
		return 0
	}
	return min(max(len(m.narrationLines()), narrationRows-1), m.narrationLimit())
}

// narrationLimit is the most rows the narration's text may take: two at
// 80×24, one more for every three rows above 24, up to maxNarration. At
// a reading point it may take what the pipeline and one row of the pane
// below it leave, up to half the screen; while the question overlay is
// open, what the question leaves (two rows at least).
func (m *Model) narrationLimit() int {
	if m.present && m.overlay == overlayNone {
		return m.presentNarrationLimit()
	}
	limit := min(narrationRows-1+max(m.height-24, 0)/3, maxNarration)
	if m.readingPoint() {
		room := min(m.height-headerRows-1-helpRows-pipelineRows-3, m.height/2)
		limit = max(limit, room)
	}
	if m.overlay == overlayQuestion {
		// the question and its choices first: d shows the whole narration
		room := m.height - headerRows - 1 - helpRows - 2 - len(m.questionView(max(m.width-4, 10)))
		limit = max(min(limit, room), narrationRows-1)
	}
	return limit
}

// readingPoint reports whether the learner is meant to read the
// narration now: in step mode, the gate holds the scenario before the
// action of the step the narration is about.
func (m *Model) readingPoint() bool {
	return m.mode == flow.ModeStep && m.nextStep != nil && m.hasStep && !m.step.Done
}

// narrationLines is the current step's narration wrapped to the width,
// unstyled.
func (m *Model) narrationLines() []string {
	if !m.hasStep {
		return nil
	}
	lang := m.shared.lang
	prefix := fmt.Sprintf(tr(lang, "step_of"), m.step.Index, m.step.Total) + " · "
	return wrapProse(prefix+m.step.Narration.In(lang), m.width)
}

// resize takes the terminal's new size: every pane gets its share, and
// the recording (if any) hears of it.
func (m *Model) resize(msg tea.WindowSizeMsg) {
	m.width, m.height = msg.Width, msg.Height
	m.layout()
	if m.onResize != nil {
		m.onResize(msg.Width, msg.Height)
	}
}
