package scenarios

import "testing"

func TestTranscriptCheck(t *testing.T) {
	res := &StepResult{HTTP: []string{`< HTTP/1.1 200 OK`, `< last chunk "0\r\n\r\n": size 0`}}
	if _, ok := (&TranscriptExpectation{Contains: `"0\r\n\r\n"`}).checkResult(res); !ok {
		t.Error("the last chunk's line was not found")
	}
	if got, ok := (&TranscriptExpectation{Contains: "HTTP/2"}).checkResult(res); ok || got == "" {
		t.Errorf("a text no line has: ok %v, got %q", ok, got)
	}
	if got, ok := (&TranscriptExpectation{Contains: "x"}).checkResult(&StepResult{}); ok || got != "no transcript" {
		t.Errorf("no transcript: ok %v, got %q", ok, got)
	}
}
