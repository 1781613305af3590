package recording

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/kubesim/kubesim/scenarios"
)

// stepOf is s as recorded.
func stepOf(s scenarios.StepInfo) *Step {
	out := &Step{Index: s.Index, Total: s.Total, ID: s.ID, Narration: s.Narration, As: s.As, Server: s.Server, Action: s.Action}
	if q := s.Question; q != nil {
		out.Question = &Question{Ask: q.Ask, Fact: q.Fact, About: q.About}
		for _, c := range q.Choices {
			out.Question.Choices = append(out.Question.Choices, Choice{Text: c.Text, Value: c.Value})
		}
	}
	return out
}

// Info is the step as the runner described it to its outputs.
func (s *Step) Info() scenarios.StepInfo {
	out := scenarios.StepInfo{Index: s.Index, Total: s.Total, ID: s.ID, Narration: s.Narration, As: s.As, Server: s.Server, Action: s.Action}
	if q := s.Question; q != nil {
		out.Question = &scenarios.Question{Ask: q.Ask, Fact: q.Fact, About: q.About}
		for _, c := range q.Choices {
			out.Question.Choices = append(out.Question.Choices, scenarios.Choice{Text: c.Text, Value: c.Value})
		}
	}
	return out
}

// resultOf is r as recorded: its Evidence as the JSON printer writes it.
func resultOf(r scenarios.StepResult) (*Result, error) {
	out := &Result{Status: r.Status, Message: r.Message, Watch: r.Watch, WatchVersions: r.WatchVersions, WatchFrom: r.WatchFrom,
		HTTP: r.HTTP, Transcript: r.Transcript, Requests: r.Requests, Answer: r.Answer, FactValue: r.FactValue}
	if r.Err != nil {
		out.Error = r.Err.Error()
	}
	if r.Evidence != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.Evidence); err != nil {
			return out, err
		}
		out.Evidence = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return out, nil
}

// StepResult is the result as the runner handed it to its outputs: its
// evidence is the recorded JSON (json.RawMessage), its error one with the
// recorded message.
func (r *Result) StepResult() scenarios.StepResult {
	out := scenarios.StepResult{Status: r.Status, Message: r.Message, Watch: r.Watch, WatchVersions: r.WatchVersions, WatchFrom: r.WatchFrom,
		HTTP: r.HTTP, Transcript: r.Transcript, Requests: r.Requests, Answer: r.Answer, FactValue: r.FactValue}
	if len(r.Evidence) > 0 {
		out.Evidence = r.Evidence
	}
	if r.Error != "" {
		out.Err = errors.New(r.Error)
	}
	return out
}
