package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// summary is the end-of-scenario view: the result, the questions'
// score, what to do next, each stage with the time it took and its key
// evidence, the steps.
func (m *Model) summary(width int) []string {
	st, lang := m.shared.styles, m.shared.lang
	var out []string
	if m.doneErr != nil {
		out = append(out, st.Fail.Render("✗ "+fmt.Sprintf(tr(lang, "failed"), m.doneErr)))
	} else {
		out = append(out, st.OK.Render("✓ "+tr(lang, "passed")))
	}
	if line := scoreLine(lang, m.walk.score()); line != "" {
		sl := &lines{width: width}
		sl.add(st.Bold, 2, line)
		out = append(out, sl.out...)
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
		titleW, title := 32, func(s flow.Stage) string { info, _ := s.Info(); return info.Title.In(lang) }
		if width < 100 {
			titleW, title = 14, func(s flow.Stage) string { return stageShort[s].In(lang) }
		}
		for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
			took := "—"
			if d, ok := t.took(s); ok {
				took = flow.FormatDuration(d)
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
			out = append(out, st.Dim.Render(fit(fmt.Sprintf(tr(lang, "held_total"), flow.FormatDuration(h)), width)))
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
			parts = append(parts, fmt.Sprintf("%s %s", e.Runtime.Action, flow.FormatDuration(e.Runtime.Duration)))
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
