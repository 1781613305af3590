package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// clusterPane shows the nodes, their pods and their cpu and memory
// allocation.
type clusterPane struct {
	*shared
	width, height int
	snap          clusterSnapshot
	connected     bool
	sc            scroll
}

var _ Component = (*clusterPane)(nil)

func (p *clusterPane) SetSize(w, h int)       { p.width, p.height = w, h; p.sc.height = h }
func (p *clusterPane) KeyHelp() []key.Binding { return []key.Binding{p.keys.Up} }

func (p *clusterPane) Update(msg tea.Msg) tea.Cmd {
	scrollKeys(p.keys, &p.sc, len(p.lines()), msg)
	return nil
}

func (p *clusterPane) lines() []string {
	st := p.styles
	if len(p.snap.Nodes) == 0 && len(p.snap.Pending) == 0 {
		msg := tr(p.lang, "no_nodes")
		if !p.connected {
			msg = tr(p.lang, "no_cluster")
		}
		return []string{st.Dim.Render(msg)}
	}
	var ls []string
	barW := min(max(p.width-20, 4), 20)
	compact := p.width < 36
	for _, n := range p.snap.Nodes {
		if compact {
			mark := st.OK.Render("✓")
			if !n.Ready {
				mark = st.Fail.Render("✗")
			}
			ls = append(ls, fmt.Sprintf("%s %s c%s m%s", st.Bold.Render(n.Name), mark, p.bar(n.ReqCPU, n.CPU, 3), p.bar(n.ReqMemory, n.Memory, 3)))
			for _, pod := range n.Pods {
				ls = append(ls, "  • "+pod.Name+" "+p.phase(pod.Phase))
			}
			continue
		}
		ready := st.OK.Render("Ready")
		if !n.Ready {
			ready = st.Fail.Render("NotReady")
		}
		ls = append(ls, st.Bold.Render(n.Name)+" "+ready+st.Dim.Render(fmt.Sprintf(" %d pods", len(n.Pods))))
		ls = append(ls, " cpu "+p.bar(n.ReqCPU, n.CPU, barW)+" "+st.Dim.Render(formatCPU(n.ReqCPU)+"/"+formatCPU(n.CPU)))
		ls = append(ls, " mem "+p.bar(n.ReqMemory, n.Memory, barW)+" "+st.Dim.Render(formatMem(n.ReqMemory)+"/"+formatMem(n.Memory)))
		for _, pod := range n.Pods {
			ls = append(ls, "  • "+pod.Name+" "+p.phase(pod.Phase))
		}
	}
	if len(p.snap.Pending) > 0 {
		ls = append(ls, st.Warn.Render(flow.Text{En: "not scheduled", Zh: "未调度"}.In(p.lang)))
		for _, pod := range p.snap.Pending {
			ls = append(ls, "  • "+pod.Name+" "+p.phase(pod.Phase))
		}
	}
	return ls
}

func (p *clusterPane) phase(ph string) string {
	switch ph {
	case "Running", "Succeeded":
		return p.styles.OK.Render(ph)
	case "Failed", "Terminating":
		return p.styles.Fail.Render(ph)
	}
	return p.styles.Warn.Render(ph)
}

// bar draws used/total as a bar of width cells.
func (p *clusterPane) bar(used, total int64, width int) string {
	full := 0
	if total > 0 {
		full = int(min(used*int64(width)/total, int64(width)))
		if used > 0 && full == 0 {
			full = 1
		}
	}
	pct := 0
	if total > 0 {
		pct = int(used * 100 / total)
	}
	return p.styles.BarFull.Render(strings.Repeat("█", full)) + p.styles.BarEmpty.Render(strings.Repeat("░", width-full)) +
		fmt.Sprintf(" %3d%%", pct)
}

func (p *clusterPane) View() string { return p.sc.window(p.lines(), p.width) }
