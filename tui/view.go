package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

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

// layout gives each pane its size for the current window.
func (m *Model) layout() {
	body := m.bodyRows()
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
	m.picker.SetSize(max(m.width-4, 20), max(body-2, 3))
	m.fullNarration.SetSize(max(m.width-2, 20), max(body-2, 1))
	m.help.Width = m.width
}

// bodyRows is the height left for the panes.
func (m *Model) bodyRows() int {
	return max(m.height-headerRows-m.narrationText()-1-helpRows, pipelineRows)
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
// below it leave, up to half the screen.
func (m *Model) narrationLimit() int {
	limit := min(narrationRows-1+max(m.height-24, 0)/3, maxNarration)
	if m.readingPoint() {
		room := min(m.height-headerRows-1-helpRows-pipelineRows-3, m.height/2)
		limit = max(limit, room)
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
	lang := m.sh.lang
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

// View renders the screen.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	if m.width < 60 || m.height < 16 {
		return fmt.Sprintf(tr(m.sh.lang, "too_small"), m.width, m.height)
	}
	body := m.bodyRows()
	parts := []string{m.header(), m.narration()}
	switch m.overlay {
	case overlayHelp:
		parts = append(parts, m.box(tr(m.sh.lang, "help_title"), m.help.FullHelpView(m.sh.keys.FullHelp()), m.width, body, true))
	case overlayPicker:
		parts = append(parts, m.pane(tr(m.sh.lang, "picker"), m.picker.View(), m.width, body, true))
	case overlaySummary:
		parts = append(parts, m.box(tr(m.sh.lang, "summary"), strings.Join(m.summary(m.width-4), "\n"), m.width, body, true))
	case overlayNarration:
		parts = append(parts, m.pane(m.fullNarration.paneTitle(), m.fullNarration.View(), m.width, body, true))
	default:
		parts = append(parts, m.panes(body))
	}
	parts = append(parts, m.helpBar())
	return strings.Join(parts, "\n")
}

// panes lays out the pipeline, evidence, event log and cluster view.
func (m *Model) panes(body int) string {
	lang := m.sh.lang
	left := m.pipeline.width + 2
	pipeTitle := tr(lang, "pipeline")
	if t := m.tracks.followed(); t != nil {
		pipeTitle += " · " + t.ref.Name
		if n := len(m.tracks.order) - 1; n > 0 {
			pipeTitle += " " + fmt.Sprintf(tr(lang, "others"), n)
		}
	}
	pipe := m.pane(pipeTitle, m.pipeline.View(), left, pipelineRows, m.focus == focusPipeline)
	lowerH := body - pipelineRows
	var lower string
	wide := m.width >= wideWidth
	if wide || m.lowerLeft == focusCluster {
		lower = m.pane(tr(lang, "cluster"), m.cluster.View(), left, lowerH, m.focus == focusCluster)
	} else {
		lower = m.pane(tr(lang, "events"), m.events.View(), left, lowerH, m.focus == focusEvents)
	}
	leftCol := lipgloss.JoinVertical(lipgloss.Left, pipe, lower)
	right := m.width - left
	var rightCol string
	if wide {
		evH := m.evidence.height + 2
		rightCol = lipgloss.JoinVertical(lipgloss.Left,
			m.pane(tr(lang, "evidence"), m.evidence.View(), right, evH, m.focus == focusEvidence),
			m.pane(tr(lang, "events"), m.events.View(), right, body-evH, m.focus == focusEvents))
	} else {
		rightCol = m.pane(tr(lang, "evidence"), m.evidence.View(), right, body, m.focus == focusEvidence)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, leftCol, rightCol)
}

// pane draws content in a rounded box of width×height cells with title
// in its top border.
func (m *Model) pane(title, content string, width, height int, focused bool) string {
	st := m.sh.styles
	side := st.Border
	if focused {
		side = st.BorderFocused
	}
	b := lipgloss.RoundedBorder()
	inner := max(width-2, 0)
	rows := strings.Split(content, "\n")
	out := make([]string, 0, height)
	t := " " + title + " "
	if focused {
		t = "[" + title + "]"
	}
	t = fit(t, max(inner-1, 0))
	tw := lipgloss.Width(t)
	out = append(out, side.Render(b.TopLeft+b.Top)+st.PaneTitle.Render(t)+
		side.Render(strings.Repeat(b.Top, max(inner-1-tw, 0))+b.TopRight))
	for i := 0; i < height-2; i++ {
		row := ""
		if i < len(rows) {
			row = rows[i]
		}
		out = append(out, side.Render(b.Left)+fit(row, inner)+side.Render(b.Right))
	}
	out = append(out, side.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return strings.Join(out, "\n")
}

// box is a pane whose content is text to be cut to its size.
func (m *Model) box(title, text string, width, height int, focused bool) string {
	rows := strings.Split(text, "\n")
	for i := range rows {
		rows[i] = " " + rows[i]
	}
	return m.pane(title, strings.Join(rows, "\n"), width, height, focused)
}

// header is the title line and the kubeconfig line.
func (m *Model) header() string {
	st, lang := m.sh.styles, m.sh.lang
	title := m.scenario.Title.In(lang)
	if title == "" {
		title = m.scenario.Name
	}
	mode := tr(lang, "auto")
	if m.mode == flow.ModeStep {
		mode = tr(lang, "step")
	}
	speed := fmt.Sprintf("×%g", m.speed)
	if m.speed == 0 {
		speed = "×∞"
	}
	l := "EN"
	if lang == "zh" {
		l = "中文"
	}
	right := st.Mode.Render(mode) + " " + st.Bold.Render(speed) + " " + st.HeaderDim.Render(l)
	left := st.Header.Render("kubesim") + " " + st.Bold.Render(title)
	line1 := fit(left, m.width-lipgloss.Width(right)-1) + " " + right

	var line2 string
	switch {
	case m.sess != nil:
		line2 = st.HeaderDim.Render("export KUBECONFIG=" + m.sess.Kubeconfig())
	case m.starting:
		line2 = st.Warn.Render(fmt.Sprintf(tr(lang, "starting"), m.scenario.Name))
	case m.startErr != nil:
		line2 = st.Fail.Render(fmt.Sprintf(tr(lang, "error"), m.startErr))
	}
	return line1 + "\n" + fit(line2, m.width)
}

// narration is the current step's narration, its action and, when the
// gate holds the followed pod, what is held.
func (m *Model) narration() string {
	st, lang := m.sh.styles, m.sh.lang
	n := m.narrationText()
	rows := m.narrationLines()
	cut := len(rows) > n
	if cut {
		rows = rows[:n]
	}
	for i := range rows {
		rows[i] = st.Narration.Render(rows[i])
	}
	if cut && n > 0 {
		// the ellipsis says there is more, and the key that shows it
		hint := " " + fmt.Sprintf(tr(lang, "narr_more"), m.sh.keys.Narration.Help().Key)
		last := cutProse(m.narrationLines()[n-1], m.width-1-ansi.StringWidth(hint))
		rows[n-1] = st.Narration.Render(last+"…") + st.Key.Render(hint)
	}
	for len(rows) < n {
		rows = append(rows, "")
	}
	last := ""
	t := m.tracks.followed()
	switch {
	case t != nil && t.held != nil:
		last = st.Held.Render("‖ " + fmt.Sprintf(tr(lang, "held"), int(heldStage(t.held.Point)), heldAt[t.held.Point].In(lang)))
	case m.nextStep != nil:
		last = st.Held.Render("‖ " + fmt.Sprintf(tr(lang, "held_step"), m.nextStep.Object.Name))
	case m.hasStep && m.step.Done:
		if m.step.Err != nil {
			last = st.Fail.Render("✗ " + stepLine(lang, m.step))
		} else {
			last = st.OK.Render("✓ " + stepLine(lang, m.step))
		}
	case m.hasStep:
		last = st.Dim.Render("… " + stepLine(lang, m.step))
	}
	rows = append(rows, last)
	for i := range rows {
		rows[i] = fit(rows[i], m.width)
	}
	return strings.Join(rows, "\n")
}

// stepLine says what step up did and, when it is done, what came of it.
func stepLine(lang string, up StepUpdate) string {
	what := up.Action
	if what == "" {
		what = tr(lang, "no_action")
	}
	switch {
	case !up.Done:
		return what
	case up.Err != nil:
		return what + " → " + up.Err.Error()
	case up.Result != "":
		return what + " → " + up.Result
	}
	return what
}

// helpBar is the short help: the picker's keys, or the main ones.
func (m *Model) helpBar() string {
	var bar string
	switch m.overlay {
	case overlayPicker:
		bar = m.help.ShortHelpView(m.picker.KeyHelp())
	case overlayNarration:
		bar = m.help.ShortHelpView(m.fullNarration.KeyHelp())
	default:
		bar = m.help.ShortHelpView(m.sh.keys.ShortHelp())
	}
	return fit(bar, m.width)
}

// summary is the end-of-scenario view: the result, each stage with the
// time it took and its key evidence, and what to do next.
func (m *Model) summary(width int) []string {
	st, lang := m.sh.styles, m.sh.lang
	var out []string
	if m.doneErr != nil {
		out = append(out, st.Fail.Render("✗ "+fmt.Sprintf(tr(lang, "failed"), m.doneErr)))
	} else {
		out = append(out, st.OK.Render("✓ "+tr(lang, "passed")))
	}
	// what to do next comes first, so that a small screen does not cut it
	offer := tr(lang, "offer_last")
	if next, ok := m.nextScenario(); ok {
		offer = fmt.Sprintf(tr(lang, "offer_next"), next.Name)
	}
	ls := &lines{width: width}
	ls.add(st.Key, 2, offer)
	out = append(append(out, ls.out...), "")
	if t := m.tracks.followed(); t != nil {
		out = append(out, st.Bold.Render(fmt.Sprintf("%s %s/%s", tr(lang, "pod"), t.ref.Namespace, t.ref.Name)))
		// the full titles when they leave the evidence room enough
		titleW, title := 32, func(s flow.Stage) string { info, _ := s.Info(); return info.Title(lang) }
		if width < 100 {
			titleW, title = 14, func(s flow.Stage) string { return stageShort[s].In(lang) }
		}
		for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
			took := "—"
			if d, ok := t.took(s); ok {
				took = short(d)
			}
			mark := "·"
			switch {
			case t.state(s) == stateHeld:
				mark = "‖"
			case s <= t.reached():
				mark = "✓"
			case s == flow.StageScheduled && t.unschedulable():
				mark = "✗"
			}
			out = append(out, fit(fmt.Sprintf(" %s %d %s %8s  %s", mark, int(s), padTo(title(s), titleW), took, keyEvidence(t, s)), width))
		}
		var others []string
		for _, o := range m.tracks.list() {
			if o != t {
				others = append(others, fmt.Sprintf("%s %d/8", o.ref.Name, int(o.reached())))
			}
		}
		if len(others) > 0 {
			ls := &lines{width: width}
			ls.add(st.Dim, 2, fmt.Sprintf(tr(lang, "others_line"), strings.Join(others, ", ")))
			out = append(out, ls.out...)
		}
		if h := t.heldBetween(time.Time{}, m.lastTick, m.lastTick); h > 0 {
			out = append(out, st.Dim.Render(fit(fmt.Sprintf(tr(lang, "held_total"), short(h)), width)))
		}
	}
	if len(m.walk.steps) > 0 {
		out = append(out, st.Bold.Render(tr(lang, "steps")))
		for _, up := range m.walk.steps {
			line := fmt.Sprintf(" %d %s", up.Index, stepLine(lang, up))
			if up.Err != nil {
				out = append(out, st.Fail.Render(fit("✗"+line, width)))
			} else {
				out = append(out, fit("✓"+line, width))
			}
		}
	}
	return out
}

// padTo pads s with spaces to w cells (double-width characters count
// two), or cuts it.
func padTo(s string, w int) string {
	return fit(s, w)
}

// keyEvidence is the one-line gist of stage s's evidence.
func keyEvidence(t *podTrack, s flow.Stage) string {
	var parts []string
	for _, e := range t.stages[s] {
		switch {
		case e.Request != nil:
			if e.Request.Route != "" {
				parts = append(parts, e.Request.Route)
			} else {
				parts = append(parts, e.Request.Method+" "+e.Request.URI)
			}
		case e.Etcd != nil:
			parts = append(parts, fmt.Sprintf("%s rev %d", e.Etcd.Key, e.Etcd.Revision))
		case e.Watch != nil:
			parts = append(parts, fmt.Sprintf("%s rv %s → %s", e.Watch.Type, e.Watch.ResourceVersion, e.Watch.User))
		case e.Scheduling != nil:
			if e.Scheduling.Chosen != "" {
				parts = append(parts, "→ "+e.Scheduling.Chosen)
			}
		case e.Runtime != nil:
			parts = append(parts, fmt.Sprintf("%s %s", e.Runtime.Action, short(e.Runtime.Duration)))
		case e.Status != nil:
			parts = append(parts, fmt.Sprintf("%s phase %s", e.Status.User, e.Status.Phase))
		}
	}
	if s == flow.StageScheduled && t.unschedulable() {
		if d := t.failed[len(t.failed)-1].Scheduling; d.Message != "" {
			parts = append(parts, d.Message)
		}
	}
	return strings.Join(parts, "; ")
}
