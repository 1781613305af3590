package scenarios_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// hostile is a scenario whose texts carry terminal control sequences, as
// YAML's double-quoted escapes write them: a window title (OSC ended by
// BEL, and by ST), clear screen, a colour, a carriage return, a bell and
// an 8-bit CSI.
const hostile = `name: hostile
title: {en: "T\e]0;pwned\a", zh: "标题\e[2J"}
summary: {en: "S\e]2;pwned\e\\", zh: "摘要\r"}
steps:
  - narration: {en: "Before\e]0;pwned\aafter\e[2J\e[31m red\u009b2J\a.", zh: "旁白\e[H\e[2J"}
    http: {path: "/api\e[2J"}
`

// controlFree fails the test if s holds an escape or control character
// other than newline and tab.
func controlFree(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f) {
			t.Errorf("%s has control character %U: %q", what, r, s)
			return
		}
	}
}

func TestLoaderStripsControlSequences(t *testing.T) {
	s, err := scenarios.Parse("hostile.yaml", []byte(hostile))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	st := s.Steps[0]
	for what, got := range map[string]string{
		"title.en": s.Title.En, "title.zh": s.Title.Zh, "summary.en": s.Summary.En, "summary.zh": s.Summary.Zh,
		"narration.en": st.Narration.En, "narration.zh": st.Narration.Zh, "action": st.Action.String(),
	} {
		controlFree(t, what, got)
	}
	if got, want := st.Narration.En, "Beforeafter red2J."; got != want {
		t.Errorf("narration.en = %q, want %q", got, want)
	}
	if got, want := s.Title.En, "T"; got != want {
		t.Errorf("title.en = %q, want %q", got, want)
	}
}

// TestPlainPrinterStripsControlSequences: the plain output has no control
// sequences, neither from a scenario file (stripped when it is loaded) nor
// from what the cluster answered (stripped as it is printed).
func TestPlainPrinterStripsControlSequences(t *testing.T) {
	s, err := scenarios.Parse("hostile.yaml", []byte(hostile))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var out bytes.Buffer
	p := scenarios.NewPlainPrinter(&out, "en")
	st := s.Steps[0]
	info := scenarios.StepInfo{Index: 1, Total: 1, Narration: st.Narration, Action: st.Action.String()}
	p.StepStarted(info)
	// Straight from the cluster: an error message and an event.
	p.StepFinished(info, scenarios.StepResult{Status: 422, Message: "pods \"x\" is invalid: \x1b]0;pwned\x07 label\x1b[2J", Err: errors.New("failed\x1b]2;pwned\x1b\\")})
	p.Event(flow.Event{Stage: 1, Component: "apiserver\x1b[2J", Object: flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "web", UID: "u"}, Summary: "admitted\x1b]0;pwned\x07"})
	text := out.String()
	controlFree(t, "plain output", text)
	for _, want := range []string{"Beforeafter red2J.", "→ 422 pods \"x\" is invalid:  label", "✗ FAILED: failed", "admitted  (apiserver)"} {
		if !strings.Contains(text, want) {
			t.Errorf("plain output lacks %q:\n%s", want, text)
		}
	}
}
