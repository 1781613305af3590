package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// The step tab shows a scenario step's own evidence: its action, what
// the action returned, its question and the transcript the action wrote
// (an http action's request and chunks, HTTP/2 frames, a startup trace),
// line by line as the runner handed them over. It is the only evidence a
// step that makes no pod has besides its requests.

// stepTabLinger is how long the step tab stays selected by itself after
// a step with a transcript or a question has ended, when nothing holds
// the next step at its gate: time enough to read the answer.
const stepTabLinger = 8 * time.Second

// stepBlock renders one step: heading, action, result or error (or
// whether it runs, or is held at its gate), the question (with the run's
// and the learner's answers once it is known) and the transcript. a is
// the learner's answer, nil when none was given.
func (v evidenceView) stepBlock(up StepUpdate, a *learnerAnswer, held bool) []flow.Line {
	out := []flow.Line{{Role: flow.RoleHeading, Text: stepHeading(v.lang, up)}}
	action := up.Action
	if action == "" {
		action = tr(v.lang, "no_action")
	}
	out = append(out, flow.Line{Text: "$ " + action, Hang: 2})
	switch {
	case !up.Done && held:
		out = append(out, note(tr(v.lang, "step_held")))
	case !up.Done:
		out = append(out, note(tr(v.lang, "step_running")))
	case up.Err != nil:
		out = append(out, flow.Line{Role: flow.RoleFailed, Text: "✗ " + up.Err.Error(), Hang: 2})
	case up.Result != "" && len(up.Transcript) > 0:
		// a response body, whole in the transcript: one row of it
		out = append(out, flow.Line{Role: flow.RoleOK, Text: fit("→ "+shortResult(up.Result), max(v.width, 10)), Fit: flow.FitNone})
	case up.Result != "":
		out = append(out, flow.Line{Role: flow.RoleOK, Text: "→ " + shortResult(up.Result), Hang: 2, Fit: resultFit(up.Result)})
	}
	if up.Question != nil {
		out = append(append(out, blankLine), questionLines(v.lang, up, a)...)
	}
	if up.Done && len(up.Transcript) > 0 {
		out = append(out, blankLine, note(tr(v.lang, "transcript")))
		for _, t := range up.Transcript {
			out = append(out, transcriptLine(t.In(v.lang), v.width))
		}
	}
	return out
}

// stepHeading is "Step 3/7 · its-id".
func stepHeading(lang string, up StepUpdate) string {
	h := fmt.Sprintf(tr(lang, "step_of"), up.Index, up.Total)
	if up.ID != "" {
		h += " · " + up.ID
	}
	return h
}

// resultFit breaks a result at words, unless it is one long word (a
// response body), which is cut anywhere.
func resultFit(r string) flow.Fit {
	if strings.ContainsAny(r, " \n") {
		return flow.FitWords
	}
	return flow.FitAnywhere
}

// transcriptLine is one line of a transcript, shown verbatim: what
// crossed the wire (a line starting with < or >) in the wire's colour,
// our words about it plainly. A line broken to width hangs its rows
// under its text (after the marker and the spaces that follow it); it
// is broken at words unless one is too long for a row (a path, a JSON
// payload), then where the row ends.
func transcriptLine(s string, width int) flow.Line {
	body := strings.TrimLeft(s, "<>*")
	body = strings.TrimLeft(body, " ")
	hang := min(len(s)-len(body), 8)
	role := flow.RoleField
	if strings.HasPrefix(s, "<") || strings.HasPrefix(s, ">") {
		role = flow.RoleFraming
	}
	ln := flow.Line{Role: role, Text: s, Hang: hang}
	for _, w := range strings.Fields(body) {
		if ansi.StringWidth(w) > width-hang && !wide(w) {
			ln.Fit = flow.FitAnywhere
			break
		}
	}
	return ln
}

// stepEvidence is the step tab's body: the latest finished step (done)
// and the step running now (cur, when it is another one; held when the
// gate holds it before its action). The running step comes first when
// it runs with a question (auto mode: the tab is where the question is
// shown), else last, as one line under the finished step's evidence (a
// question held at the gate is in its overlay).
func (v evidenceView) stepEvidence(cur, done *StepUpdate, held bool, answers map[int]learnerAnswer) []string {
	block := func(up *StepUpdate) []flow.Line {
		var a *learnerAnswer
		if got, ok := answers[up.Index]; ok {
			a = &got
		}
		return v.stepBlock(*up, a, held && up == cur)
	}
	var out []flow.Line
	switch {
	case cur == nil && done == nil:
		out = append(out, note(tr(v.lang, "no_step")))
	case done == nil:
		out = block(cur)
	case cur == nil:
		out = block(done)
	case cur.Question != nil && !held:
		out = append(append(block(cur), blankLine), block(done)...)
	default:
		then := "step_then"
		if held {
			then = "step_then_held"
		}
		out = append(block(done), blankLine, flow.Line{Role: flow.RoleNote, Hang: 2,
			Text: fmt.Sprintf(tr(v.lang, then), stepHeading(v.lang, *cur), stepLine(v.lang, *cur))})
	}
	return v.draw(out)
}

// lastDone is the latest finished step of the walkthrough, or nil.
func (w *walkthrough) lastDone() *StepUpdate {
	if len(w.steps) == 0 {
		return nil
	}
	return &w.steps[len(w.steps)-1]
}

// stepTabKey names what the step tab shows, so that the pane scrolls
// back to the top when it changes.
func stepTabKey(cur, done *StepUpdate) string {
	k := ""
	if cur != nil && !cur.Done {
		k = fmt.Sprintf("run %d ", cur.Index)
	}
	if done != nil {
		k += fmt.Sprintf("done %d", done.Index)
	}
	return k
}

// hasOwnEvidence reports whether up has evidence only the step tab
// shows: a transcript or a question.
func hasOwnEvidence(up *StepUpdate) bool {
	return up != nil && (len(up.Transcript) > 0 || up.Question != nil)
}

// wantsStepTab reports whether the evidence pane opens the step tab by
// itself (the learner has not chosen a tab): while the latest finished
// step's transcript or answer is fresh (the step is the current one, the
// gate holds the next before its action, or, in auto mode, it ended less
// than stepTabLinger ago: in step mode the next step's stages are where
// the learner looks once they let it run); while a question is asked in auto mode (no gate
// waits for an answer: the tab shows it, then the answer); and when no
// pod is followed and the step has no requests of its own to show.
func (m *Model) wantsStepTab(t *podTrack, hasRequests bool) bool {
	if !m.hasStep {
		return false
	}
	if done := m.walk.lastDone(); hasOwnEvidence(done) {
		linger := m.mode != flow.ModeStep && m.clock().Sub(m.lastDoneAt) < stepTabLinger
		if done.Index == m.step.Index || m.readingPoint() || linger {
			return true
		}
	}
	if !m.step.Done && m.step.Question != nil && m.mode != flow.ModeStep {
		return true
	}
	return t == nil && !hasRequests
}

// showStep fills the evidence pane's step tab.
func (m *Model) showStep(v evidenceView) {
	var cur *StepUpdate
	if m.hasStep && !m.step.Done {
		cur = &m.step
	}
	done := m.walk.lastDone()
	held := cur != nil && m.holdsStep(cur.Index)
	body := v.stepEvidence(cur, done, held, m.walk.answers)
	body = append(body, v.draw(v.controllerActions(&m.tracks.controllers))...)
	m.evidence.setStep(stepTabKey(cur, done), body)
}
