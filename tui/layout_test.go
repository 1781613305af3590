package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestSmallAndResize(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageScheduled)
	for _, sz := range []struct{ w, h int }{{80, 24}, {100, 30}, {160, 50}, {120, 40}} {
		m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		checkSize(t, m.View(), sz.w, sz.h)
	}
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 10})
	if v := m.View(); !strings.Contains(v, "too small") {
		t.Errorf("at 50×10: %q, want a too-small note", v)
	}
}

// TestNarrationRows: the narration gets two rows at 80×24 and one more
// for every three rows above, up to maxNarration; at a reading point it
// may take what the pipeline and a row of the pane below leave, up to
// half the screen; the narration overlay takes it all.
func TestNarrationRows(t *testing.T) {
	held := &flow.Boundary{Point: flow.PointNextStep, Component: "scenario"}
	tests := []struct {
		name    string
		w, h    int
		reading bool
		overlay overlay
		want    int
	}{
		{"80x24", 80, 24, false, overlayNone, 2},
		{"80x27", 80, 27, false, overlayNone, 3},
		{"80x30", 80, 30, false, overlayNone, 4},
		{"80x60 is capped", 80, 60, false, overlayNone, maxNarration},
		{"80x24 reading", 80, 24, true, overlayNone, 24 - headerRows - 1 - helpRows - pipelineRows - 3},
		{"120x40 reading is half the screen", 120, 40, true, overlayNone, 20},
		{"the overlay shows it all", 120, 40, true, overlayNarration, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := startedModel(t, tt.w, tt.h, "en")
			m.Update(stepMsg{gen: m.gen, up: hugeStep})
			if tt.reading {
				m.nextStep = held
			}
			m.overlay = tt.overlay
			if got := m.narrationText(); got != tt.want {
				t.Errorf("narrationText() = %d, want %d", got, tt.want)
			}
			if got, want := m.bodyRows(), max(tt.h-headerRows-tt.want-1-helpRows, pipelineRows); got != want {
				t.Errorf("bodyRows() = %d, want %d", got, want)
			}
		})
	}
}
