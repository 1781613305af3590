package scenarios

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// StatusExpectation: the action's HTTP status is Code.
type StatusExpectation struct{ Code int }

var _ failedRequestReader = (*StatusExpectation)(nil)

func (e *StatusExpectation) Kind() string   { return "status" }
func (e *StatusExpectation) String() string { return fmt.Sprintf("status %d", e.Code) }

// parseStatus reads an HTTP status code (100-599).
func parseStatus(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	c, err := decodeAs[integer](n)
	if err != nil {
		return nil, err
	}
	if c < 100 || c > 599 {
		return nil, errAt(n, "%d is not an HTTP status code", c)
	}
	return &StatusExpectation{Code: int(c)}, nil
}

// checkResult compares the status of the action's (last) request.
func (e *StatusExpectation) checkResult(res *StepResult) (string, bool) {
	if res.Status == e.Code {
		return "", true
	}
	if res.Status == 0 {
		return "no HTTP status (the action made no request)", false
	}
	return fmt.Sprintf("status %d", res.Status), false
}

// readsFailedRequest: a failed request's status is what it checks.
func (e *StatusExpectation) readsFailedRequest() {}
