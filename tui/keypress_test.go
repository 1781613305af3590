package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestGateKeys(t *testing.T) {
	m, s := startedModel(t, 120, 40, "en")
	g := s.Gate()

	m.Update(keyMsg("p"))
	if got := g.Mode(); got != flow.ModeAuto {
		t.Errorf("after p: gate mode = %v, want auto", got)
	}
	m.Update(keyMsg("p"))
	if got := g.Mode(); got != flow.ModeStep {
		t.Errorf("after p p: gate mode = %v, want step", got)
	}
	m.Update(keyMsg("+"))
	if got, want := g.Delay(), AutoDelay(2); got != want {
		t.Errorf("after +: gate delay = %v, want %v", got, want)
	}
	m.Update(keyMsg("-"))
	m.Update(keyMsg("-"))
	if got, want := g.Delay(), AutoDelay(0.5); got != want {
		t.Errorf("after + - -: gate delay = %v, want %v", got, want)
	}

	// space lets the held boundary go, exactly as Advance does
	released := make(chan error, 1)
	go func() {
		released <- g.Wait(context.Background(), flow.Boundary{Point: flow.PointBeforeScheduling, Component: "scheduler"})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatalf("the boundary was never held: %v", err)
	}
	m.Update(keyMsg(" "))
	select {
	case err := <-released:
		if err != nil {
			t.Errorf("Wait = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("space did not release the held boundary")
	}
}

func TestLanguageKey(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	feed(m, flow.StageScheduled)
	m.Update(keyMsg("L"))
	if v := m.View(); !strings.Contains(v, "调度绑定") || !strings.Contains(v, "单步") {
		t.Errorf("after L the view is not in Chinese:\n%s", v)
	}
	m.Update(keyMsg("L"))
	if v := m.View(); !strings.Contains(v, "scheduled") {
		t.Errorf("after L L the view is not in English:\n%s", v)
	}
}
