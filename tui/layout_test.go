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
