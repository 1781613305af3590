package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestStepKeysUnique: no action key is another field of a step, and no
// key is registered twice.
func TestStepKeysUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range stepKeys {
		if seen[k] {
			t.Errorf("step field %q is there twice", k)
		}
		seen[k] = true
	}
	if len(stepKeys) != len(actionKinds)+8 {
		t.Errorf("%d step fields for %d actions, want the actions and id, narration, question, as, server, wait, expect, timeout", len(stepKeys), len(actionKinds))
	}
}

// TestActionParsersRejectNothing: every action's parser refuses an empty
// value with an error at the value, which the loader names after the key.
func TestActionParsersRejectNothing(t *testing.T) {
	for _, k := range actionKinds {
		t.Run(k.key, func(t *testing.T) {
			_, err := testLoader(nil).action(k, mustNode(t, "~"))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: ~ gave %v, want a *FileError", k.key, err)
			}
			if fe.Line != 1 || fe.Col != 1 || !strings.HasPrefix(fe.Msg, k.key+":") {
				t.Errorf("%s: ~ gave %s, want an error at 1:1 that starts with %q", k.key, fe, k.key+":")
			}
		})
	}
}

// TestExpectationParsersRejectNothing: every expectation's parser refuses
// an empty value with an error at the value, which the loader names after
// the key.
func TestExpectationParsersRejectNothing(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range expectationKinds {
		if seen[k.key] {
			t.Errorf("expectation %q is registered twice", k.key)
		}
		seen[k.key] = true
		t.Run(k.key, func(t *testing.T) {
			_, err := testLoader(nil).expect(k, mustNode(t, "~"))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("%s: ~ gave %v, want a *FileError", k.key, err)
			}
			if fe.Line != 1 || fe.Col != 1 || !strings.HasPrefix(fe.Msg, k.key+":") {
				t.Errorf("%s: ~ gave %s, want an error at 1:1 that starts with %q", k.key, fe, k.key+":")
			}
		})
	}
}
