package flow

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// scheduling lays out the scheduler's decision for a pod: the attempt,
// every node's filter verdict in name order, the scores of the nodes
// that fit, and the node chosen (or why none fits). Brief writes each
// node on one line, scores as plugin score×weight; Full writes a table,
// the chosen node starred and each plugin's score on a row of its own.
func (l Layout) scheduling(ev Event, _ Context) []Line {
	d := ev.Scheduling
	nodes := append([]NodeVerdict(nil), d.Nodes...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].Node < nodes[j].Node })
	if l.Form == Brief {
		return l.briefScheduling(d, nodes)
	}
	var out []Line
	if d.Chosen != "" {
		out = append(out, line(RoleHeading, 2, l.printf("attempt_chosen", d.Attempt, d.Chosen)))
	} else {
		out = append(out, line(RoleFailed, 2, l.printf("attempt_no_fit", d.Attempt)))
	}
	if d.Message != "" {
		out = append(out, line(RoleWarning, 2, d.Message))
	}
	out = append(out, l.tie(d)...)
	out = append(out, l.preemption(d)...)
	nameW, plugW := ansi.StringWidth(l.word("col_node")), 6
	for _, n := range nodes {
		nameW = max(nameW, len(n.Node))
		for _, sc := range n.Scores {
			plugW = max(plugW, len(sc.Plugin))
		}
	}
	out = append(out, line(RoleNote, 0, "  "+Pad(l.word("col_node"), nameW)+"  "+Pad(l.word("col_filter"), 8)+" "+l.word("col_score")))
	for _, n := range nodes {
		mark := " "
		if n.Node == d.Chosen {
			mark = "★"
		}
		if !n.Feasible {
			out = append(out, line(RoleRemoved, 4, fmt.Sprintf("%s %-*s  ✗ %s: %s", mark, nameW, n.Node, n.FailedPlugin, strings.Join(n.Reasons, ", "))))
			continue
		}
		role := RoleField
		if n.Node == d.Chosen {
			role = RoleOK
		}
		out = append(out, line(role, 4, fmt.Sprintf("%s %-*s  %s %d", mark, nameW, n.Node, Pad("✓ "+l.word("fit"), 8), n.Total)))
		for _, s := range n.Scores {
			out = append(out, line(RoleNote, 6, fmt.Sprintf("    %-*s %-*s %3d ×%d", min(nameW, 2), "", plugW, s.Plugin, s.Score, s.Weight)))
		}
	}
	return out
}

// briefScheduling is scheduling's Brief form, nodes in name order.
func (l Layout) briefScheduling(d *SchedulingDecision, nodes []NodeVerdict) []Line {
	attempt := "attempt_nodes"
	if len(d.Nodes) == 1 {
		attempt = "attempt_node"
	}
	out := []Line{line(RoleHeading, 0, l.printf(attempt, d.Attempt, len(d.Nodes)))}
	feasible := 0
	for _, n := range d.Nodes {
		if n.Feasible {
			feasible++
		}
	}
	for _, n := range nodes {
		mark := " "
		if n.Node == d.Chosen {
			mark = "*"
		}
		switch {
		case !n.Feasible:
			out = append(out, line(RoleRemoved, 0, l.printf("filtered_by", mark, n.Node, n.FailedPlugin, strings.Join(n.Reasons, "; "))))
		case feasible == 1 && len(n.Scores) == 0:
			// As kube-scheduler does, a lone feasible node is not scored.
			out = append(out, field(l.printf("fits_alone", mark, n.Node)))
		default:
			var scores []string
			for _, s := range n.Scores {
				scores = append(scores, fmt.Sprintf("%s %d×%d", s.Plugin, s.Score, s.Weight))
			}
			out = append(out, field(l.printf("fits_total", mark, n.Node, n.Total, strings.Join(scores, " + "))))
		}
	}
	if d.Chosen != "" {
		out = append(out, l.tie(d)...)
		out = append(out, line(RoleOK, 0, l.printf("chosen", d.Chosen)))
	} else if d.Message != "" {
		out = append(out, line(RoleFailed, 0, l.printf("no_fit", d.Message)))
	}
	return append(out, l.preemption(d)...)
}

// preemption says where evicting lower-priority pods makes room, which
// node the scheduler chose and by which rule, and the victims there.
func (l Layout) preemption(d *SchedulingDecision) []Line {
	p := d.Preemption
	if p == nil || len(p.Candidates) == 0 {
		return nil
	}
	var out []Line
	if p.Node != "" {
		out = append(out, line(RoleWarning, 2, l.printf("preempt_chosen", p.Node, p.Rule)))
	}
	for _, c := range p.Candidates {
		mark := " "
		if c.Node == p.Node {
			mark = "*"
		}
		text := l.printf("preempt_candidate", mark, c.Node, strings.Join(c.Victims, ", "))
		if c.PDBViolations > 0 {
			text += " " + l.printf("preempt_pdb", c.PDBViolations)
		}
		out = append(out, line(RoleNote, 4, text))
	}
	return out
}

// tie says, when several nodes shared the highest total, which they were
// and that kube-scheduler picked the chosen one among them at random.
func (l Layout) tie(d *SchedulingDecision) []Line {
	if len(d.Tied) < 2 || d.Chosen == "" {
		return nil
	}
	return []Line{line(RoleNote, 2, l.printf("tie", len(d.Tied), strings.Join(d.Tied, ", "), d.Chosen))}
}
