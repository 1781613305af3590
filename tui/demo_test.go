package tui

import (
	"context"
	"os"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestDemo runs the TUI on the terminal with the fake cluster, for
// people to look at: KUBESIM_TUI_DEMO=1 with the compiled test binary
// (go test -c) run in a terminal.
func TestDemo(t *testing.T) {
	if os.Getenv("KUBESIM_TUI_DEMO") == "" {
		t.Skip("set KUBESIM_TUI_DEMO=1 and run the test binary in a terminal")
	}
	d := &fakeDriver{play: playStages}
	if err := Run(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: "en", Markdown: os.Getenv("KUBESIM_TUI_DEMO_MD")}); err != nil {
		t.Fatal(err)
	}
}
