package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// nodeQuestion is a question with three choices; the run makes node-2
// (index 1) true.
var nodeQuestion = &Question{
	Ask:     flow.Text{En: "Which node will the scheduler choose for nginx?", Zh: "调度器会为 nginx 选择哪个节点？"},
	Choices: []flow.Text{{En: "node-1", Zh: "node-1"}, {En: "node-2", Zh: "node-2"}, {En: "node-3 (it has the most free memory)", Zh: "node-3（空闲内存最多）"}},
}

// questionStep is step i of 3 asking nodeQuestion.
func questionStep(i int) StepUpdate {
	return StepUpdate{Index: i, Total: 3, ID: "q" + string(rune('0'+i)), Question: nodeQuestion,
		Narration: flow.Text{En: "Before the scheduler runs, guess.", Zh: "调度器运行之前，先猜一猜。"},
		Action:    "apply Pod default/nginx"}
}

// heldStep starts up in m's session as the runner does: the step's
// start, then its action waiting at the gate (a real flow.Gate, in step
// mode). The returned channel is closed when the gate lets it go.
func heldStep(t *testing.T, m *Model, s *fakeSession, up StepUpdate) <-chan struct{} {
	t.Helper()
	m.Update(stepMsg{gen: m.gen, up: up})
	b := nextStepHold(up, false).Hold.Boundary
	released := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	go func() {
		if s.gate.Wait(ctx, b) == nil {
			close(released)
		}
	}()
	for len(s.gate.Held()) == 0 {
		if _, err := s.gate.WaitHeld(ctx); err != nil {
			t.Fatalf("the step never reached the gate: %v", err)
		}
	}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(up, false)}})
	return released
}

// passed waits (with a deadline) for the gate to let the step go, then
// tells the model, and ends the step with the run's answer.
func passed(t *testing.T, m *Model, released <-chan struct{}, up StepUpdate, answer int) {
	t.Helper()
	select {
	case <-released:
	case <-time.After(waitTimeout):
		t.Fatalf("step %d: the gate did not let the step go", up.Index)
	}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(up, true)}})
	up.Done, up.Result, up.Answer = true, "pod/nginx created", answer
	m.Update(stepMsg{gen: m.gen, up: up})
}

func plainView(m *Model) string { return ansi.Strip(m.View()) }

// TestQuestionRightWrongSkipped: in step mode the question overlay opens
// at the gate; 2 answers right, 1 wrong, space skips; each lets the gate
// go; the step tab and the narration say how each went; the summary
// keeps the score.
func TestQuestionRightWrongSkipped(t *testing.T) {
	m, s := startedModel(t, 80, 24, "en")

	rel := heldStep(t, m, s, questionStep(1))
	if m.overlay != overlayQuestion {
		t.Fatalf("the question overlay did not open at the gate (overlay %d)", m.overlay)
	}
	v := plainView(m)
	for _, want := range []string{"Question · step 1/3", "Which node will the scheduler choose", "1. node-1", "2. node-2", "3. node-3", "space: skip"} {
		if !strings.Contains(v, want) {
			t.Errorf("question overlay lacks %q:\n%s", want, v)
		}
	}
	m.Update(keyMsg("4")) // not a choice: nothing happens
	if m.overlay != overlayQuestion {
		t.Fatalf("a key that names no choice closed the question")
	}
	m.Update(keyMsg("2"))
	passed(t, m, rel, questionStep(1), 1)
	if v := plainView(m); !strings.Contains(v, "? right: 2. node-2") {
		t.Errorf("after a right answer the narration does not say so:\n%s", v)
	}
	if m.evidence.tab != tabStep {
		t.Errorf("the step tab does not show the answered question")
	}
	if b := strings.Join(m.evidence.body, "\n"); !strings.Contains(b, "✓ 2. node-2  ← the run's answer, yours") {
		t.Errorf("step tab after a right answer:\n%s", b)
	}

	rel = heldStep(t, m, s, questionStep(2))
	if m.overlay != overlayQuestion {
		t.Fatalf("the second question did not open")
	}
	m.Update(keyMsg("esc")) // hidden: the digits still answer
	if m.overlay != overlayNone || !strings.Contains(plainView(m), "a question: 1–3 to answer") {
		t.Errorf("with the overlay hidden the held line does not offer the question:\n%s", plainView(m))
	}
	// behind the hidden overlay, the step tab shows how the last answer went
	if b := strings.Join(m.evidence.body, "\n"); !strings.HasPrefix(b, "Step 1/3 · q1") || !strings.Contains(b, "right: 2. node-2") ||
		!strings.Contains(b, "next Step 2/3 · q2") {
		t.Errorf("step tab while question 2 is held:\n%s", b)
	}
	m.Update(keyMsg("1"))
	passed(t, m, rel, questionStep(2), 1)
	if v := plainView(m); !strings.Contains(v, "? wrong: you answered 1; the run's answer: 2. node-2") {
		t.Errorf("after a wrong answer the narration does not say so:\n%s", v)
	}
	if b := strings.Join(m.evidence.body, "\n"); !strings.Contains(b, "✗ 1. node-1  ← yours") || !strings.Contains(b, "✓ 2. node-2  ← the run's answer") {
		t.Errorf("step tab after a wrong answer:\n%s", b)
	}

	rel = heldStep(t, m, s, questionStep(3))
	m.Update(keyMsg(" "))
	passed(t, m, rel, questionStep(3), 1)
	if b := strings.Join(m.evidence.body, "\n"); !strings.Contains(b, "skipped; the run's answer: 2. node-2") {
		t.Errorf("step tab after a skip:\n%s", b)
	}
	if got := m.walk.score(); got != (score{asked: 3, right: 1, skipped: 1}) {
		t.Errorf("score = %+v, want 3 asked, 1 right, 1 skipped", got)
	}
	m.Update(sessionDoneMsg{gen: m.gen})
	if v := plainView(m); !strings.Contains(v, "Questions: 1 of 3 right (1 skipped)") {
		t.Errorf("the summary lacks the score:\n%s", v)
	}
}

// TestQuestionCursor: ↑/↓ move the mark, enter answers with it.
func TestQuestionCursor(t *testing.T) {
	m, s := startedModel(t, 80, 24, "en")
	rel := heldStep(t, m, s, questionStep(1))
	m.Update(keyMsg("down"))
	m.Update(keyMsg("down"))
	m.Update(keyMsg("down")) // stays on the last
	if !strings.Contains(plainView(m), "▸ 3. node-3") {
		t.Errorf("the cursor is not on choice 3:\n%s", plainView(m))
	}
	m.Update(keyMsg("up"))
	m.Update(keyMsg("enter"))
	passed(t, m, rel, questionStep(1), 1)
	if a := m.walk.answers[1]; a.Choice != 1 || a.Skipped {
		t.Errorf("answer = %+v, want choice 1 (node-2)", a)
	}
}

// TestQuestionAutoMode: with no gate to wait at, the question is shown
// in the step tab while the step runs and the answer after, not scored.
func TestQuestionAutoMode(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	m.mode = flow.ModeAuto
	up := questionStep(1)
	m.Update(stepMsg{gen: m.gen, up: up})
	// the auto gate's hold and release
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(up, false)}})
	if m.overlay == overlayQuestion {
		t.Errorf("auto mode opened the question overlay")
	}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(up, true)}})
	if m.evidence.tab != tabStep || !strings.Contains(plainView(m), "Question: Which node") {
		t.Errorf("auto mode does not show the question in the step tab:\n%s", plainView(m))
	}
	m.Update(keyMsg("2")) // no question is asked: the digit does nothing
	if len(m.walk.answers) != 0 {
		t.Errorf("a digit answered in auto mode: %v", m.walk.answers)
	}
	up.Done, up.Answer = true, 1
	m.Update(stepMsg{gen: m.gen, up: up})
	if b := strings.Join(m.evidence.body, "\n"); !strings.Contains(b, "not scored;") || !strings.Contains(b, "the run's answer: 2. node-2") {
		t.Errorf("auto mode's answer:\n%s", b)
	}
	m.Update(sessionDoneMsg{gen: m.gen})
	if v := plainView(m); !strings.Contains(v, "1 more shown in auto mode, not scored") || strings.Contains(v, "right") {
		t.Errorf("the summary's score line in auto mode:\n%s", v)
	}
}

// TestQuestionChinese: the overlay, the verdict and the score in Chinese.
func TestQuestionChinese(t *testing.T) {
	m, s := startedModel(t, 80, 24, "zh")
	rel := heldStep(t, m, s, questionStep(1))
	v := plainView(m)
	for _, want := range []string{"问题 · 第 1/3 步", "调度器会为 nginx 选择哪个节点？", "3. node-3（空闲内存最多）", "空格：跳过"} {
		if !strings.Contains(v, want) {
			t.Errorf("question overlay lacks %q:\n%s", want, v)
		}
	}
	m.Update(keyMsg("3"))
	passed(t, m, rel, questionStep(1), 1)
	if v := plainView(m); !strings.Contains(v, "答错了：你选了 3；实际结果：2. node-2") {
		t.Errorf("the verdict in Chinese:\n%s", v)
	}
	m.Update(sessionDoneMsg{gen: m.gen})
	if v := plainView(m); !strings.Contains(v, "问题：1 题答对 0 题") {
		t.Errorf("the score in Chinese:\n%s", v)
	}
}

// TestQuestionFits: a question of five long choices fits at 80×24: the
// narration above it gives up rows (d shows it all).
func TestQuestionFits(t *testing.T) {
	m, s := startedModel(t, 80, 24, "en")
	q := &Question{Ask: flow.Text{En: "Which resourceVersion does nginx carry in the ADDED event the scheduler receives at stage 3 of its creation?"}}
	for i := 0; i < 5; i++ {
		q.Choices = append(q.Choices, flow.Text{En: fmt.Sprintf("choice %d: a long one, so that it takes two rows of the overlay at eighty columns", i+1)})
	}
	up := questionStep(1)
	up.Question = q
	up.Narration = flow.Text{En: strings.Repeat("A long narration that would take most of the screen at a reading point. ", 12)}
	heldStep(t, m, s, up)
	v := plainView(m)
	if rows := strings.Split(v, "\n"); len(rows) != 24 {
		t.Fatalf("the view has %d rows", len(rows))
	}
	for _, want := range []string{"5. choice 5", "space: skip", "d: read all"} {
		if !strings.Contains(v, want) {
			t.Errorf("the question overlay at 80×24 lacks %q:\n%s", want, v)
		}
	}
	m.Update(keyMsg("esc"))
	if n := m.narrationText(); n <= narrationRows-1 {
		t.Errorf("with the overlay hidden the narration keeps %d rows", n)
	}
}
