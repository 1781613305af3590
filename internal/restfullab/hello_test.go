package restfullab

import (
	"context"
	"slices"
	"testing"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestHello starts the seed's two Containers twice (the default one is
// registered once per process) and checks which one answered each call.
func TestHello(t *testing.T) {
	for round := range 2 {
		h, err := StartHello()
		if err != nil {
			t.Fatalf("round %d: StartHello: %v", round, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitfor.Bound)
		answers, err := h.Call(ctx)
		cancel()
		if err != nil {
			t.Fatalf("round %d: Call: %v", round, err)
		}
		want := []struct{ container, body string }{{DefaultContainer, DefaultWorld}, {NewContainer, SecondWorld}}
		if len(answers) != len(want) {
			t.Fatalf("round %d: %d answers, want %d", round, len(answers), len(want))
		}
		for i, w := range want {
			a := answers[i]
			if a.Container != w.container || a.Status != 200 || a.Body != w.body {
				t.Errorf("round %d: answer %d = %s %d %q, want %s 200 %q", round, i, a.Container, a.Status, a.Body, w.container, w.body)
			}
			if !slices.Equal(a.WebServices, []string{"/"}) {
				t.Errorf("round %d: %s has WebServices %v, want [/]", round, a.Container, a.WebServices)
			}
		}
		if answers[0].URL == answers[1].URL {
			t.Errorf("round %d: both Containers at %s", round, answers[0].URL)
		}
		if err := h.Close(); err != nil {
			t.Errorf("round %d: Close: %v", round, err)
		}
	}
}
