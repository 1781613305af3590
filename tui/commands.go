package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// The commands below do the model's waiting: each blocks in its own
// goroutine on one source (a session's channel, the TUI's watch, etcd's
// history, the clock) and returns what came as one message. They read
// nothing of the model; Update re-arms a waitFor command after each of
// its messages, so every fact reaches the model through Update.

// tick returns the clock's next tick, a second from now.
func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// waitForEvents returns the next flow events of s (those waiting, up to
// a buffer's worth), or eventsClosedMsg when Events is closed.
func waitForEvents(gen int, s Session) tea.Cmd {
	ch := s.Events()
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsClosedMsg{gen}
		}
		evs := []flow.Event{ev}
		for len(evs) < flow.DefaultBuffer {
			select {
			case ev, ok := <-ch:
				if !ok {
					return flowEventsMsg{gen, evs}
				}
				evs = append(evs, ev)
			default:
				return flowEventsMsg{gen, evs}
			}
		}
		return flowEventsMsg{gen, evs}
	}
}

// waitForStep returns the next step update of s, or stepsClosedMsg when
// Steps is closed.
func waitForStep(gen int, s Session) tea.Cmd {
	ch := s.Steps()
	return func() tea.Msg {
		up, ok := <-ch
		if !ok {
			return stepsClosedMsg{gen}
		}
		return stepMsg{gen, up}
	}
}

// waitForDone returns sessionDoneMsg once the scenario of s has finished.
func waitForDone(gen int, s Session) tea.Cmd {
	return func() tea.Msg {
		<-s.Done()
		return sessionDoneMsg{gen}
	}
}

// waitForKubeEvents returns the next core/v1 Events w saw, or nil once w
// is stopped.
func waitForKubeEvents(gen int, w *kubeWatch) tea.Cmd {
	return func() tea.Msg {
		evs := w.nextEvents()
		if evs == nil {
			return nil
		}
		return kubeEventsMsg{gen, evs}
	}
}

// waitForCluster returns the cluster view once nodes or pods changed, or
// nil once w is stopped.
func waitForCluster(gen int, w *kubeWatch) tea.Cmd {
	return func() tea.Msg {
		snap, ok := w.nextSnapshot()
		if !ok {
			return nil
		}
		return clusterMsg{gen, snap}
	}
}

// readHistory returns etcd's value of k from s, or the error; ctx (the
// session owner's) and a timeout of 5 seconds bound the read.
func readHistory(ctx context.Context, gen int, s Session, k historyKey) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		v, err := s.History(ctx, k.Key, k.Rev)
		return historyMsg{gen, k, historyEntry{Value: v, Err: err}}
	}
}
