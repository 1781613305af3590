package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// A step may ask the learner a question before its action runs. In step
// mode, while the gate holds the step at flow.PointNextStep, the question
// overlay opens by itself: keys 1..n (or ↑/↓ and enter) answer it and let
// the step go on, the advance key lets it go on unanswered (a skip), esc
// hides the overlay (a shows it again). Once the step has run, the step
// tab and the narration's last line say whether the answer was right and
// which choice the run made true (StepUpdate.Answer). In auto mode no
// gate waits for an answer: the step tab shows the question while the
// step runs and the answer after, not scored.

// learnerAnswer is what the learner did with a step's question at its
// gate: chose Choice (from 0), or Skipped it with the advance key.
type learnerAnswer struct {
	Choice  int
	Skipped bool
}

// right reports whether a is the run's answer to up's question.
func (a learnerAnswer) right(up StepUpdate) bool {
	return !a.Skipped && up.Done && a.Choice == up.Answer
}

// asking returns the question of the current step while it is asked at
// the gate: step mode, the gate holds this very step before its action,
// and the learner has not answered it yet.
func (m *Model) asking() *Question {
	if !m.readingPoint() || m.step.Question == nil || len(m.step.Question.Choices) == 0 {
		return nil
	}
	if !m.holdsStep(m.step.Index) {
		return nil // the hold is of another step (the two come on two channels)
	}
	if _, ok := m.walk.answers[m.step.Index]; ok {
		return nil
	}
	return m.step.Question
}

// holdsStep reports whether the gate holds step i before its action
// (the runner names the hold "i/total id").
func (m *Model) holdsStep(i int) bool {
	return m.nextStep != nil && strings.HasPrefix(m.nextStep.Object.Name, fmt.Sprintf("%d/", i))
}

// syncQuestion opens the question overlay once per question, when it is
// asked and nothing else covers the panes, and closes it when the
// question is no longer asked (answered, or the gate let the step go).
func (m *Model) syncQuestion() {
	q := m.asking()
	switch {
	case q == nil && m.overlay == overlayQuestion:
		m.overlay = overlayNone
	case q != nil && m.overlay == overlayNone && m.questionShown != m.step.Index:
		m.overlay, m.questionShown = overlayQuestion, m.step.Index
		m.questionCursor = 0
	}
}

// answer records the learner's answer to the question asked (choice
// from 0, or -1 for a skip) and lets the gate go on, as the advance key
// does.
func (m *Model) answer(choice int) {
	if m.asking() == nil {
		return
	}
	m.walk.answers[m.step.Index] = learnerAnswer{Choice: choice, Skipped: choice < 0}
	if m.overlay == overlayQuestion {
		m.overlay = overlayNone
	}
	if m.sess != nil {
		m.sess.Gate().Advance()
	}
}

// choiceKey returns the choice (from 0) a digit key names for question
// q, and whether it names one.
func choiceKey(msg tea.KeyMsg, q *Question) (int, bool) {
	n, err := strconv.Atoi(msg.String())
	if err != nil || n < 1 || n > len(q.Choices) {
		return 0, false
	}
	return n - 1, true
}

// questionKey handles the question overlay's keys: a digit or enter
// answers, ↑/↓ move the cursor, the advance key skips, esc and a hide
// the overlay. The panes' keys hide it too and act on the panes; the
// others (q, L, p, ?...) are not handled here.
func (m *Model) questionKey(msg tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	k, q := m.shared.keys, m.asking()
	if q == nil {
		m.overlay = overlayNone
		return nil, false
	}
	if c, ok := choiceKey(msg, q); ok {
		m.answer(c)
		return nil, true
	}
	switch {
	case key.Matches(msg, k.Enter):
		m.answer(m.questionCursor)
	case key.Matches(msg, k.Up):
		m.questionCursor = max(m.questionCursor-1, 0)
	case key.Matches(msg, k.Down):
		m.questionCursor = min(m.questionCursor+1, len(q.Choices)-1)
	case key.Matches(msg, k.Next):
		m.answer(-1)
	case key.Matches(msg, k.Back), key.Matches(msg, k.Answer):
		m.overlay = overlayNone
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane), key.Matches(msg, k.Left), key.Matches(msg, k.Right),
		key.Matches(msg, k.PrevTab), key.Matches(msg, k.NextTab):
		m.overlay = overlayNone
		return nil, false
	default:
		return nil, false
	}
	return nil, true
}

// questionView is the overlay's text, wrapped to width: the question,
// its numbered choices (the cursor's marked) and the keys.
func (m *Model) questionView(width int) []string {
	st, lang, q := m.shared.styles, m.shared.lang, m.asking()
	if q == nil {
		return nil
	}
	ls := &lines{width: width}
	ls.add(st.Bold, 0, q.Ask.In(lang))
	ls.blank()
	for i, c := range q.Choices {
		mark, style := "  ", st.Narration
		if i == m.questionCursor {
			mark, style = "▸ ", st.Key
		}
		ls.add(style, 5, fmt.Sprintf("%s%d. %s", mark, i+1, c.In(lang)))
	}
	ls.blank()
	ls.add(st.Dim, 0, fmt.Sprintf(tr(lang, "q_keys"), len(q.Choices)))
	return ls.out
}

// questionHelp is the help bar while the question overlay is open.
func (m *Model) questionHelp() []key.Binding {
	k, lang := m.shared.keys, m.shared.lang
	hide := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr(lang, "q_hide")))
	return []key.Binding{k.Choose, k.Skip, hide, k.Narration, k.Lang, k.Quit}
}

// questionLines are a question in the step tab: the question, its
// choices and, once the step has run, which one the run made true and
// what the learner answered (a, nil when they did not).
func questionLines(lang string, up StepUpdate, a *learnerAnswer) []flow.Line {
	q := up.Question
	out := []flow.Line{{Role: flow.RoleHeading, Text: tr(lang, "question") + " " + q.Ask.In(lang), Hang: 2}}
	for i, c := range q.Choices {
		ln := flow.Line{Text: fmt.Sprintf("  %d. %s", i+1, c.In(lang)), Hang: 5}
		var tags []string
		if up.Done && i == up.Answer {
			ln.Role, ln.Text = flow.RoleOK, "✓"+ln.Text[1:]
			tags = append(tags, tr(lang, "q_run"))
		}
		if a != nil && !a.Skipped && i == a.Choice {
			if up.Done && i != up.Answer {
				ln.Role, ln.Text = flow.RoleFailed, "✗"+ln.Text[1:]
			}
			tags = append(tags, tr(lang, "q_yours"))
		}
		if len(tags) > 0 {
			ln.Text += "  ← " + strings.Join(tags, ", ")
		}
		out = append(out, ln)
	}
	if v := verdict(lang, up, a); v != "" {
		role := flow.RoleNote
		switch {
		case a != nil && a.right(up):
			role = flow.RoleOK
		case a != nil && !a.Skipped && up.Done:
			role = flow.RoleFailed
		}
		out = append(out, flow.Line{Role: role, Text: v, Hang: 2})
	}
	return out
}

// verdict says in one line how the learner's answer a to up's question
// compares with the run's: right, wrong (and the run's answer), skipped,
// not asked (auto mode), or still to be seen.
func verdict(lang string, up StepUpdate, a *learnerAnswer) string {
	if !up.Done {
		if a != nil && !a.Skipped {
			return fmt.Sprintf(tr(lang, "q_wait"), a.Choice+1)
		}
		return ""
	}
	run := tr(lang, "q_none_true")
	if up.Answer >= 0 && up.Answer < len(up.Question.Choices) {
		run = fmt.Sprintf("%d. %s", up.Answer+1, up.Question.Choices[up.Answer].In(lang))
	}
	switch {
	case a == nil:
		return fmt.Sprintf(tr(lang, "q_unscored"), run)
	case a.Skipped:
		return fmt.Sprintf(tr(lang, "q_skipped"), run)
	case a.right(up):
		return fmt.Sprintf(tr(lang, "q_right"), run)
	}
	return fmt.Sprintf(tr(lang, "q_wrong"), a.Choice+1, run)
}

// score counts the questions of the steps played: asked at a gate
// (answered or skipped), answered right, skipped, and shown without
// being asked (auto mode).
type score struct{ asked, right, skipped, shown int }

// score is the walkthrough's score so far.
func (w *walkthrough) score() score {
	var s score
	for _, up := range w.steps {
		if up.Question == nil {
			continue
		}
		a, ok := w.answers[up.Index]
		switch {
		case !ok:
			s.shown++
			continue
		case a.Skipped:
			s.skipped++
		case a.right(up):
			s.right++
		}
		s.asked++
	}
	return s
}

// scoreLine is the summary's line about the questions, "" when the
// scenario asked none.
func scoreLine(lang string, s score) string {
	var parts []string
	if s.asked > 0 {
		line := fmt.Sprintf(tr(lang, "q_score"), s.right, s.asked)
		if s.skipped > 0 {
			line += fmt.Sprintf(tr(lang, "q_score_skipped"), s.skipped)
		}
		parts = append(parts, line)
	}
	if s.shown > 0 {
		parts = append(parts, fmt.Sprintf(tr(lang, "q_score_shown"), s.shown))
	}
	return strings.Join(parts, " · ")
}
