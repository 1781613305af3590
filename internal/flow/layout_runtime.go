package flow

import "fmt"

// runtime lays out one action of the container runtime: the action,
// the container (and image), how long it took and its result. Brief
// names the component at the end; Full is one row of a timeline that
// starts at c.Since: when the action began (it is recorded when it ends,
// Duration later), then the component.
func (l Layout) runtime(ev Event, c Context) []Line {
	r := ev.Runtime
	role := RoleField
	if r.Result != "ok" {
		role = RoleFailed
	}
	result := l.translated(outcomes, r.Result)
	if l.Form == Brief {
		what := r.Container
		if r.Image != "" {
			what += " (" + r.Image + ")"
		}
		return []Line{line(role, 0, fmt.Sprintf("%s %-6s %s  %s  %s  [%s]", l.word("runtime"), r.Action, what, FormatDuration(r.Duration), result, ev.Component))}
	}
	what := r.Container
	if r.Image != "" {
		what += " " + r.Image
	}
	began := ev.Time.Add(-r.Duration).Sub(c.Since)
	return []Line{line(role, 4, fmt.Sprintf("%-8s %s %-7s %-6s %s  %s", "+"+FormatDuration(began), ev.Component, r.Action, FormatDuration(r.Duration), result, what))}
}
