package tui

import "github.com/kubesim/kubesim/internal/flow"

// The TUI draws text it did not write: what a Driver hands over (titles,
// summaries, narration, actions, results, failures, from a scenario file
// or from the cluster) and core/v1 Events. Each is made
// flow.Printable where it enters the model, so that no terminal control
// sequence in it (a window title, a clear screen) reaches the terminal;
// the styles the TUI adds itself come after.

// printableInfos returns copies of infos with their texts made printable.
func printableInfos(infos []ScenarioInfo) []ScenarioInfo {
	out := make([]ScenarioInfo, len(infos))
	for i, in := range infos {
		in.Name, in.Level = flow.Printable(in.Name), flow.Printable(in.Level)
		in.Title, in.Summary = in.Title.Printable(), in.Summary.Printable()
		out[i] = in
	}
	return out
}

// printableStep returns a copy of u with its texts (transcript and
// question included), and its error's message, made printable.
func printableStep(u StepUpdate) StepUpdate {
	u.ID, u.Action, u.Result = flow.Printable(u.ID), flow.Printable(u.Action), flow.Printable(u.Result)
	u.Narration = u.Narration.Printable()
	u.Err = printableErr(u.Err)
	if len(u.Transcript) > 0 {
		ts := make([]flow.Text, len(u.Transcript))
		for i, t := range u.Transcript {
			ts[i] = t.Printable()
		}
		u.Transcript = ts
	}
	if q := u.Question; q != nil {
		pq := &Question{Ask: q.Ask.Printable(), Choices: make([]flow.Text, len(q.Choices))}
		for i, c := range q.Choices {
			pq.Choices[i] = c.Printable()
		}
		u.Question = pq
	}
	return u
}

// printableError is an error whose message is made printable; it unwraps
// to the original.
type printableError struct{ err error }

func (e printableError) Error() string { return flow.Printable(e.err.Error()) }
func (e printableError) Unwrap() error { return e.err }

// printableErr wraps err (nil stays nil) so that its message is printable.
func printableErr(err error) error {
	if err == nil {
		return nil
	}
	return printableError{err}
}
