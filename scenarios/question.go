package scenarios

import "github.com/kubesim/kubesim/internal/flow"

// Question is a step's question for the learner: asked at the step's gate
// (before its action), answered in the TUI with keys or on stdin with
// play --step, and revealed when the step has run. Which choice is right
// is never written in the scenario: the run decides it from its own
// evidence (Fact), and StepResult.Answer names the choice that came true.
type Question struct {
	// Ask is the question.
	Ask flow.Text
	// Choices are the possible answers, in the order shown (2 to 5).
	Choices []Choice
	// Fact names what in the step's evidence decides the answer (see
	// the fact kinds registered in the loader).
	Fact string
	// About says what the fact is, for the line that reveals the answer:
	// "node of web".
	About flow.Text
	// fact computes the fact from a run (see factKinds).
	fact fact
}

// Choice is one possible answer to a Question.
type Choice struct {
	// Text is the choice as the learner reads it.
	Text flow.Text
	// Value is what the Fact must be for this choice to be the right
	// one.
	Value string
}
