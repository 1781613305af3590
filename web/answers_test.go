package web

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

func TestTheClassAnswersAndTheTeacherReveals(t *testing.T) {
	srv, _, sess := startServer(t)
	teacher := openStream(t, srv, "?key="+srv.Key(), "")
	viewer := openStream(t, srv, "", "")
	q := &tui.Question{Ask: flow.Text{En: "Which node?"}, Choices: []flow.Text{{En: "node-1"}, {En: "node-2"}}}
	sess.steps <- tui.StepUpdate{Index: 1, Total: 2, ID: "ask", Question: q}
	viewer.waitFor("step", func(d map[string]any) bool { return d["question"] != nil })

	answer := func(viewer string, step, choice int) int {
		return post(t, srv, "/api/answer", "", fmt.Sprintf(`{"viewer":%q,"step":%d,"choice":%d}`, viewer, step, choice))
	}
	if code := answer("ann", 1, 0); code != http.StatusNoContent {
		t.Fatalf("ann's answer: %d, want 204", code)
	}
	if code := answer("bob", 1, 1); code != http.StatusNoContent {
		t.Fatalf("bob's answer: %d, want 204", code)
	}
	for _, tc := range []struct {
		name         string
		step, choice int
		viewer       string
		want         int
	}{
		{"a choice out of range", 1, 2, "cat", http.StatusBadRequest},
		{"another step", 2, 0, "cat", http.StatusConflict},
		{"no viewer id", 1, 0, "", http.StatusBadRequest},
	} {
		if code := answer(tc.viewer, tc.step, tc.choice); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
	}
	teacher.waitFor("tally", func(d map[string]any) bool {
		return fmt.Sprint(d["counts"]) == "[1 1]" && d["answered"] == float64(2)
	})
	if code := post(t, srv, "/api/control", srv.Key(), `{"action":"reveal","step":1}`); code != http.StatusConflict {
		t.Errorf("reveal before the step ran: %d, want 409", code)
	}
	sess.steps <- tui.StepUpdate{Index: 1, Total: 2, ID: "ask", Done: true, Question: q, Answer: 1}
	if code := post(t, srv, "/api/control", "", `{"action":"reveal","step":1}`); code != http.StatusForbidden {
		t.Errorf("a viewer revealing: %d, want 403", code)
	}
	if code := post(t, srv, "/api/control", srv.Key(), `{"action":"reveal","step":1}`); code != http.StatusNoContent {
		t.Fatalf("reveal: %d, want 204", code)
	}
	// The viewer's stream carries the reveal but never the tally.
	for {
		m := viewer.waitFor("", func(map[string]any) bool { return true })
		if m.Data["t"] == "tally" {
			t.Fatalf("a viewer's stream carried the tally: %v", m.Data)
		}
		if m.Data["t"] == "reveal" {
			if m.Data["answer"] != float64(1) || fmt.Sprint(m.Data["counts"]) != "[1 1]" {
				t.Errorf("reveal = %v, want answer 1 and counts [1 1]", m.Data)
			}
			break
		}
	}
	if code := answer("dan", 1, 0); code != http.StatusConflict {
		t.Errorf("an answer after the reveal: %d, want 409", code)
	}
}

// TestStepsDoNotGiveTheAnswerAway: a step's end says nothing of its
// answer to any page; only the teacher's reveal does.
func TestStepsDoNotGiveTheAnswerAway(t *testing.T) {
	srv, _, sess := startServer(t)
	viewer := openStream(t, srv, "", "")
	q := &tui.Question{Ask: flow.Text{En: "Which node?"}, Choices: []flow.Text{{En: "node-1"}, {En: "node-2"}}}
	sess.steps <- tui.StepUpdate{Index: 1, Total: 1, Question: q}
	sess.steps <- tui.StepUpdate{Index: 1, Total: 1, Done: true, Question: q, Answer: 1}
	m := viewer.waitFor("step", func(d map[string]any) bool { return d["done"] == true })
	if m.Data["answer"] != float64(-1) {
		t.Errorf("the step's end carries answer %v, want -1", m.Data["answer"])
	}
}
