package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// pipelinePane shows the eight stages of the followed pod: done ones
// ticked, the current one marked, the time each took.
type pipelinePane struct {
	*shared
	width, height int
	track         *podTrack
	selected      flow.Stage
	now           time.Time
}

var _ Component = (*pipelinePane)(nil)

func (p *pipelinePane) SetSize(w, h int)       { p.width, p.height = w, h }
func (p *pipelinePane) Update(tea.Msg) tea.Cmd { return nil }
func (p *pipelinePane) KeyHelp() []key.Binding { return []key.Binding{p.keys.Left, p.keys.Up} }

func (p *pipelinePane) View() string {
	st := p.styles
	rows := make([]string, 0, 8)
	for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
		state := statePending
		if p.track != nil {
			state = p.track.state(s)
		}
		mark, style := "·", st.StagePending
		switch state {
		case stateDone:
			mark, style = "✓", st.StageDone
		case stateActive:
			mark, style = "▶", st.StageCurrent
		case stateHeld:
			mark, style = "‖", st.Held
		}
		if p.track != nil && s == p.track.current() && state != stateHeld {
			style = st.StageCurrent
		}
		failed := p.track != nil && s == flow.StageScheduled && p.track.unschedulable()
		if failed {
			mark, style = "✗", st.Fail
		}
		took := ""
		if p.track != nil {
			if d, ok := p.track.took(s); ok {
				took = flow.FormatDuration(d)
			}
			if failed {
				took = fmt.Sprintf(tr(p.lang, "attempts"), len(p.track.failed))
			}
		}
		sel := " "
		if s == p.selected {
			sel = "›"
		}
		label := stageShort[s].In(p.lang)
		left := fmt.Sprintf("%s%s %d %s", sel, mark, int(s), label)
		row := fit(left, p.width)
		if tw := ansi.StringWidth(took); tw > 0 {
			row = fit(left, max(p.width-tw-1, 0)) + " " + took
		}
		row = style.Render(row)
		if s == p.selected {
			row = st.StageSelected.Render(row)
		}
		rows = append(rows, row)
	}
	for len(rows) < p.height {
		rows = append(rows, strings.Repeat(" ", p.width))
	}
	return strings.Join(rows[:p.height], "\n")
}
