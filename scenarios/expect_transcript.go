package scenarios

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// TranscriptExpectation: a line of the action's transcript (what an http
// or etcdWatch action shows of the exchange: request and status lines,
// headers, chunks, frames, events) contains Contains, exactly (case and
// escapes: the transcript quotes CR and LF as \r and \n).
type TranscriptExpectation struct{ Contains string }

var _ resultChecker = (*TranscriptExpectation)(nil)

func (e *TranscriptExpectation) Kind() string { return "transcript" }
func (e *TranscriptExpectation) String() string {
	return fmt.Sprintf("transcript line containing %q", e.Contains)
}

// parseTranscript reads the text a transcript line must contain.
func parseTranscript(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	s, err := decodeAs[str](n)
	if err != nil {
		return nil, err
	}
	if s == "" {
		return nil, errAt(n, "the text is empty")
	}
	return &TranscriptExpectation{Contains: string(s)}, nil
}

// checkResult looks for the text in each line of the transcript.
func (e *TranscriptExpectation) checkResult(res *StepResult) (string, bool) {
	for _, line := range res.HTTP {
		if strings.Contains(line, e.Contains) {
			return "", true
		}
	}
	if len(res.HTTP) == 0 {
		return "no transcript", false
	}
	return fmt.Sprintf("%d transcript lines, the last %q", len(res.HTTP), truncate(res.HTTP[len(res.HTTP)-1], 200)), false
}
