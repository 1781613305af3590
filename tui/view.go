package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/kubesim/kubesim/internal/flow"
)

// Sizes of the fixed parts of the screen.
const (
	headerRows    = 2
	narrationRows = 3
	helpRows      = 1
	pipelineRows  = 8 + 2 // eight stages and the border
	wideWidth     = 110   // from here on the event log gets its own pane
)

// layout gives each pane its size for the current window.
func (m *Model) layout() {
	body := max(m.height-headerRows-narrationRows-helpRows, pipelineRows)
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
	m.help.Width = m.width
}

// View renders the screen.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	if m.width < 60 || m.height < 16 {
		return fmt.Sprintf(tr(m.sh.lang, "too_small"), m.width, m.height)
	}
	body := max(m.height-headerRows-narrationRows-helpRows, pipelineRows)
	parts := []string{m.header(), m.narration()}
	switch m.overlay {
	case overlayHelp:
		parts = append(parts, m.box(tr(m.sh.lang, "help_title"), m.help.FullHelpView(m.sh.keys.FullHelp()), m.width, body, true))
	case overlayPicker:
		parts = append(parts, m.pane(tr(m.sh.lang, "picker"), m.picker.View(), m.width, body, true))
	case overlaySummary:
		parts = append(parts, m.box(tr(m.sh.lang, "summary"), strings.Join(m.summary(m.width-4), "\n"), m.width, body, true))
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
	if wide || m.lower == focusCluster {
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
	st := m.sh.st
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
	st, lang := m.sh.st, m.sh.lang
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
	case m.err != nil:
		line2 = st.Fail.Render(fmt.Sprintf(tr(lang, "error"), m.err))
	}
	return line1 + "\n" + fit(line2, m.width)
}

// narration is the current step's narration, its action and, when the
// gate holds the followed pod, what is held.
func (m *Model) narration() string {
	st, lang := m.sh.st, m.sh.lang
	ls := &lines{width: m.width}
	if m.hasStep {
		prefix := fmt.Sprintf(tr(lang, "step_of"), m.step.Index, m.step.Total) + " · "
		ls.add(st.Narration, 0, prefix+m.step.Narration.In(lang))
	}
	rows := ls.out
	if len(rows) > narrationRows-1 {
		rows = rows[:narrationRows-1]
		rows[len(rows)-1] = fit(rows[len(rows)-1], m.width-1) + "…"
	}
	for len(rows) < narrationRows-1 {
		rows = append(rows, "")
	}
	last := ""
	t := m.tracks.followed()
	switch {
	case t != nil && t.held != nil:
		last = st.Held.Render("‖ " + fmt.Sprintf(tr(lang, "held"), int(t.held.Point.After())+1))
	case m.hasStep && m.step.Done:
		res := m.step.Result
		if m.step.Err != nil {
			last = st.Fail.Render("✗ " + m.step.Action + " → " + m.step.Err.Error())
		} else {
			last = st.OK.Render("✓ " + m.step.Action + " → " + res)
		}
	case m.hasStep:
		last = st.Dim.Render("… " + m.step.Action)
	}
	rows = append(rows, last)
	for i := range rows {
		rows[i] = fit(rows[i], m.width)
	}
	return strings.Join(rows, "\n")
}

// helpBar is the short help: the picker's keys, or the main ones.
func (m *Model) helpBar() string {
	var bar string
	switch m.overlay {
	case overlayPicker:
		bar = m.help.ShortHelpView(m.picker.KeyHelp())
	default:
		bar = m.help.ShortHelpView(m.sh.keys.ShortHelp())
	}
	return fit(bar, m.width)
}

// summary is the end-of-scenario view: the result, each stage with the
// time it took and its key evidence, and what to do next.
func (m *Model) summary(width int) []string {
	st, lang := m.sh.st, m.sh.lang
	var out []string
	if m.doneErr != nil {
		out = append(out, st.Fail.Render("✗ "+fmt.Sprintf(tr(lang, "failed"), m.doneErr)))
	} else {
		out = append(out, st.OK.Render("✓ "+tr(lang, "passed")))
	}
	if t := m.tracks.followed(); t != nil {
		out = append(out, st.Bold.Render(fmt.Sprintf("%s %s/%s", tr(lang, "pod"), t.ref.Namespace, t.ref.Name)))
		for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
			info, _ := s.Info()
			d, ok := t.took(s, m.nowTime)
			took := "—"
			if ok {
				took = short(d)
			}
			mark := "·"
			if t.state(s) == stateDone {
				mark = "✓"
			}
			out = append(out, fit(fmt.Sprintf(" %s %d %-*s %8s  %s", mark, int(s), 30, info.Title(lang), took, keyEvidence(t, s)), width))
		}
	}
	out = append(out, "")
	if next, ok := m.nextScenario(); ok {
		out = append(out, st.Key.Render(fmt.Sprintf(tr(lang, "offer_next"), next.Name)))
	} else {
		out = append(out, st.Key.Render(tr(lang, "offer_last")))
	}
	return out
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
	return strings.Join(parts, "; ")
}
