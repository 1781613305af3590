package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// pickerPane lists the scenarios with their titles and summaries.
type pickerPane struct {
	*shared
	width, height int
	items         []ScenarioInfo
	cursor        int
}

var _ Component = (*pickerPane)(nil)

func (p *pickerPane) SetSize(w, h int) { p.width, p.height = w, h }
func (p *pickerPane) KeyHelp() []key.Binding {
	return []key.Binding{p.keys.Up, p.keys.Enter, p.keys.Back}
}

func (p *pickerPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, p.keys.Up):
			p.cursor = max(p.cursor-1, 0)
		case key.Matches(k, p.keys.Down):
			p.cursor = min(p.cursor+1, len(p.items)-1)
		}
	}
	return nil
}

// choose puts the cursor on the scenario called name.
func (p *pickerPane) choose(name string) {
	for i, it := range p.items {
		if it.Name == name {
			p.cursor = i
		}
	}
}

// chosen returns the scenario under the cursor.
func (p *pickerPane) chosen() (ScenarioInfo, bool) {
	if p.cursor < 0 || p.cursor >= len(p.items) {
		return ScenarioInfo{}, false
	}
	return p.items[p.cursor], true
}

func (p *pickerPane) View() string {
	st := p.styles
	lang := p.lang
	nameW := 4
	for _, it := range p.items {
		nameW = max(nameW, len(it.Name))
	}
	var ls []string
	for i, it := range p.items {
		cur := "  "
		style := st.Narration
		if i == p.cursor {
			cur, style = "› ", st.StageCurrent
		}
		ls = append(ls, style.Render(fit(fmt.Sprintf("%s%-*s  %-12s %s", cur, nameW, it.Name, it.Level, it.Title.In(lang)), p.width)))
	}
	// the summary of the scenario under the cursor, below the list
	sum := &lines{width: p.width - 2}
	if it, ok := p.chosen(); ok {
		sum.add(st.Bold, 0, it.Title.In(lang))
		sum.add(st.Narration, 0, it.Summary.In(lang))
		sum.add(st.Dim, 0, fmt.Sprintf(flow.Text{En: "%d steps · %s", Zh: "%d 步 · %s"}.In(lang), it.Steps, it.Level))
	}
	listH := max(p.height-len(sum.out)-1, 3)
	sc := scroll{height: listH}
	if p.cursor >= listH {
		sc.off = p.cursor - listH + 1
	}
	out := sc.window(ls, p.width) + "\n" + strings.Repeat(" ", p.width)
	for _, s := range sum.out {
		out += "\n" + fit(" "+s, p.width)
	}
	rows := strings.Split(out, "\n")
	for len(rows) < p.height {
		rows = append(rows, strings.Repeat(" ", p.width))
	}
	return strings.Join(rows[:p.height], "\n")
}
