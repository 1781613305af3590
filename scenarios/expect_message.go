package scenarios

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// MessageExpectation: the action's error message (or response body)
// contains Contains.
type MessageExpectation struct{ Contains string }

var _ failedRequestReader = (*MessageExpectation)(nil)

func (e *MessageExpectation) Kind() string   { return "message" }
func (e *MessageExpectation) String() string { return fmt.Sprintf("message containing %q", e.Contains) }

// parseMessage reads the text the message must contain.
func parseMessage(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	s, err := decodeAs[str](n)
	if err != nil {
		return nil, err
	}
	return &MessageExpectation{Contains: string(s)}, nil
}

// checkResult looks for the text in the action's message, ignoring case.
func (e *MessageExpectation) checkResult(res *StepResult) (string, bool) {
	if containsFold(res.Message, e.Contains) {
		return "", true
	}
	return fmt.Sprintf("message %q", truncate(res.Message, 300)), false
}

// readsFailedRequest: a failed request's message is what it checks.
func (e *MessageExpectation) readsFailedRequest() {}
