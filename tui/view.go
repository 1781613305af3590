package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// View renders the screen.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	if m.width < 60 || m.height < 16 {
		return fmt.Sprintf(tr(m.shared.lang, "too_small"), m.width, m.height)
	}
	body := m.bodyRows()
	parts := []string{m.header(), m.narration()}
	switch m.overlay {
	case overlayHelp:
		parts = append(parts, m.box(tr(m.shared.lang, "help_title"), m.help.FullHelpView(m.shared.keys.FullHelp()), m.width, body, true))
	case overlayPicker:
		parts = append(parts, m.pane(tr(m.shared.lang, "picker"), m.picker.View(), m.width, body, true))
	case overlaySummary:
		parts = append(parts, m.box(tr(m.shared.lang, "summary"), strings.Join(m.summary(m.width-4), "\n"), m.width, body, true))
	case overlayNarration:
		parts = append(parts, m.pane(m.fullNarration.paneTitle(), m.fullNarration.View(), m.width, body, true))
	case overlayNodes:
		parts = append(parts, m.pane(nodesText["title"].In(m.shared.lang), m.nodes.View(), m.width, body, true))
	case overlayQuestion:
		title := fmt.Sprintf(tr(m.shared.lang, "question_title"), m.step.Index, m.step.Total)
		parts = append(parts, m.box(title, strings.Join(m.questionView(m.width-4), "\n"), m.width, body, true))
	default:
		parts = append(parts, m.panes(body))
	}
	parts = append(parts, m.helpBar())
	return strings.Join(parts, "\n")
}

// panes lays out the pipeline, evidence, event log and cluster view.
func (m *Model) panes(body int) string {
	lang := m.shared.lang
	if !m.podPane() {
		return m.podlessPanes(body)
	}
	left := m.pipeline.width + 2
	pipeTitle := tr(lang, "pipeline")
	if t := m.tracks.followed(); t != nil {
		pipeTitle += " · " + t.ref.Name
		if n := len(m.tracks.order) - 1; n > 0 {
			pipeTitle += " " + fmt.Sprintf(tr(lang, "others"), n)
		}
	}
	pipe := m.pane(pipeTitle, m.pipeline.View(), left, pipelineRows, m.activeFocus() == focusPipeline)
	lowerH := body - pipelineRows
	wide := m.width >= wideWidth
	leftCol := pipe // the narration took the lower pane's rows (present.go)
	switch {
	case !m.lowerShown():
	case wide || m.lowerLeft == focusCluster:
		leftCol = lipgloss.JoinVertical(lipgloss.Left, pipe,
			m.pane(tr(lang, "cluster"), m.cluster.View(), left, lowerH, m.activeFocus() == focusCluster))
	default:
		leftCol = lipgloss.JoinVertical(lipgloss.Left, pipe,
			m.pane(tr(lang, "events"), m.events.View(), left, lowerH, m.activeFocus() == focusEvents))
	}
	right := m.width - left
	var rightCol string
	if wide {
		evH := m.evidence.height + 2
		rightCol = lipgloss.JoinVertical(lipgloss.Left,
			m.pane(tr(lang, "evidence"), m.evidence.View(), right, evH, m.activeFocus() == focusEvidence),
			m.pane(tr(lang, "events"), m.events.View(), right, body-evH, m.activeFocus() == focusEvents))
	} else {
		rightCol = m.pane(tr(lang, "evidence"), m.evidence.View(), right, body, m.activeFocus() == focusEvidence)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, leftCol, rightCol)
}

// podlessPanes lays out a run without pods: the evidence the whole
// width, over the event log on wide screens.
func (m *Model) podlessPanes(body int) string {
	lang, f := m.shared.lang, m.activeFocus()
	if m.width < wideWidth {
		return m.pane(tr(lang, "evidence"), m.evidence.View(), m.width, body, f == focusEvidence)
	}
	evH := m.evidence.height + 2
	return lipgloss.JoinVertical(lipgloss.Left,
		m.pane(tr(lang, "evidence"), m.evidence.View(), m.width, evH, f == focusEvidence),
		m.pane(tr(lang, "events"), m.events.View(), m.width, body-evH, f == focusEvents))
}

// pane draws content in a rounded box of width×height cells with title
// in its top border.
func (m *Model) pane(title, content string, width, height int, focused bool) string {
	st := m.shared.styles
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
	st, lang := m.shared.styles, m.shared.lang
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
	case m.sess != nil && m.sess.Kubeconfig() == "":
		line2 = st.HeaderDim.Render(tr(lang, "replay")) // a replay: no cluster
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
	st, lang := m.shared.styles, m.shared.lang
	n := m.narrationText()
	rows := m.narrationLines()
	cut := len(rows) > n && !m.present
	switch {
	case m.present && len(rows) > n:
		rows, _, _ = m.narrationWindowRows(rows, n)
	case cut:
		rows = rows[:n]
	}
	for i := range rows {
		rows[i] = st.Narration.Render(rows[i])
	}
	if cut && n > 0 {
		// the ellipsis says there is more, and the key that shows it
		hint := " " + fmt.Sprintf(tr(lang, "narr_more"), m.shared.keys.Narration.Help().Key)
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
	case m.nextStep != nil && m.asking() != nil:
		last = st.Held.Render("‖ " + fmt.Sprintf(tr(lang, "held_question"), m.nextStep.Object.Name, len(m.asking().Choices)))
	case m.nextStep != nil:
		last = st.Held.Render("‖ " + fmt.Sprintf(tr(lang, "held_step"), m.nextStep.Object.Name))
	case m.hasStep && m.step.Done:
		last = m.doneLine()
	case m.hasStep:
		last = st.Dim.Render("… " + stepLine(lang, m.step))
	}
	if hint := m.pageHint(); hint != "" {
		hint = " " + hint
		last = fit(last, m.width-ansi.StringWidth(hint)) + st.Key.Render(hint)
	}
	rows = append(rows, last)
	for i := range rows {
		rows[i] = fit(rows[i], m.width)
	}
	return strings.Join(rows, "\n")
}

// doneLine is the narration's last line once the current step has
// ended: ✓ or ✗ and what the step did, after the verdict on the
// learner's answer when the step asked a question.
func (m *Model) doneLine() string {
	st, lang := m.shared.styles, m.shared.lang
	line := stepLine(lang, m.step)
	mark, style := "✓ ", st.OK
	if m.step.Err != nil {
		mark, style = "✗ ", st.Fail
	}
	if m.step.Question == nil {
		return style.Render(mark + line)
	}
	var a *learnerAnswer
	if got, ok := m.walk.answers[m.step.Index]; ok {
		a = &got
	}
	v, vstyle := verdict(lang, m.step, a), st.Warn
	switch {
	case a != nil && a.right(m.step):
		vstyle = st.OK
	case a != nil && !a.Skipped:
		vstyle = st.Fail
	}
	return vstyle.Render("? "+v) + st.Dim.Render(" · ") + style.Render(mark+line)
}

// stepLine says what step up did and, when it is done, what came of it,
// on one line (a result's line breaks, a response body's, would break
// the screen's rows).
func stepLine(lang string, up StepUpdate) string {
	what := up.Action
	if what == "" {
		what = tr(lang, "no_action")
	}
	switch {
	case !up.Done:
		return what
	case up.Err != nil:
		return what + " → " + strings.Join(strings.Fields(up.Err.Error()), " ")
	case up.Result != "":
		return what + " → " + shortResult(up.Result)
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
	case overlayQuestion:
		bar = m.help.ShortHelpView(m.questionHelp())
	case overlayNodes:
		bar = m.help.ShortHelpView(m.nodes.KeyHelp())
	default:
		bar = m.help.ShortHelpView(m.shared.keys.ShortHelp())
	}
	return fit(bar, m.width)
}
