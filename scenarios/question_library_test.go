package scenarios_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// TestEveryLessonAsks: every lesson of the library asks the learner at
// least one question (whose answer its run decides: TestLibraryPlays
// checks that each was answered with one of its choices).
func TestEveryLessonAsks(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatalf("Library: %v", err)
	}
	for _, s := range lib {
		if !slices.ContainsFunc(s.Steps, func(st *scenarios.Step) bool { return st.Question != nil }) {
			t.Errorf("lesson %s asks no question: give a step a question: whose fact its run decides", s.Name)
		}
	}
}

// answeredQuestions hands every call on to inner and notes each step
// with a question whose run did not answer it with one of its choices.
type answeredQuestions struct {
	inner scenarios.Observer

	mu       sync.Mutex
	asked    int
	problems []string
}

func (a *answeredQuestions) StepStarted(s scenarios.StepInfo) { a.inner.StepStarted(s) }

func (a *answeredQuestions) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	a.inner.StepFinished(s, r)
	if s.Question == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked++
	q := s.Question
	if r.Answer < 0 || r.Answer >= len(q.Choices) || q.Choices[r.Answer].Value != r.FactValue {
		a.problems = append(a.problems, fmt.Sprintf("step %d (%s): question %q: answer %d, fact %q", s.Index, s.ID, q.Ask.En, r.Answer, r.FactValue))
	}
}

// check fails t for each question not answered, or if none was asked.
func (a *answeredQuestions) check(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.asked == 0 {
		t.Errorf("no question was asked")
	}
	for _, p := range a.problems {
		t.Errorf("%s", p)
	}
}
