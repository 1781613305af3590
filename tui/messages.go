package tui

import (
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// The messages the model's commands send to Update. Each about a
// session carries gen, the generation of the session it is about
// (Model.gen when its command was made); Update drops a message of an
// older session, so a restart never mixes two clusters' facts.
type (
	// sessionStartedMsg ends a start: the new session, or why it failed.
	sessionStartedMsg struct {
		gen  int
		sess Session
		err  error
	}
	// flowEventsMsg is the next flow events of the session, in order.
	flowEventsMsg struct {
		gen int
		evs []flow.Event
	}
	// eventsClosedMsg says the session's Events channel was closed.
	eventsClosedMsg struct{ gen int }
	// stepMsg is a scenario step starting or ending.
	stepMsg struct {
		gen int
		up  StepUpdate
	}
	// stepsClosedMsg says the session's Steps channel was closed.
	stepsClosedMsg struct{ gen int }
	// sessionDoneMsg says the scenario has finished (Session.Done).
	sessionDoneMsg struct{ gen int }
	// historyMsg is etcd's value of a key at a revision, for a diff.
	historyMsg struct {
		gen   int
		key   historyKey
		entry historyEntry
	}
	// kubeEventsMsg is the next core/v1 Events the TUI's watch saw.
	kubeEventsMsg struct {
		gen int
		evs []kubeEvent
	}
	// clusterMsg is the cluster view after nodes or pods changed.
	clusterMsg struct {
		gen  int
		snap clusterSnapshot
	}
	// tickMsg is the clock's second-by-second tick.
	tickMsg time.Time
)
