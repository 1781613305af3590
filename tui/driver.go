package tui

import (
	"context"
	"io"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
)

// Driver starts scenarios. main implements it; the TUI calls it from
// commands (never from Update), one call at a time.
type Driver interface {
	// Scenarios lists the scenarios the picker offers, in the order shown.
	Scenarios() []ScenarioInfo
	// Start boots a fresh cluster for scenario name and starts playing it
	// with opts. The returned Session is closed by the TUI (Close) when
	// the learner restarts, picks another scenario or quits. Start may
	// take a while (it boots etcd and the control plane); ctx ends it.
	Start(ctx context.Context, name string, opts StartOptions) (Session, error)
}

// StartOptions are the settings a scenario starts with.
type StartOptions struct {
	// Mode is the gate's mode at start (flow.ModeAuto or flow.ModeStep).
	Mode flow.Mode
	// Speed scales simulated delays: 1 is the default, 2 twice as fast,
	// 0 no delay at all. The gate's auto delay is flow.DefaultAutoDelay
	// divided by Speed (AutoDelay).
	Speed float64
	// Lang is "en" or "zh" (for whatever the driver prints or records).
	Lang string
}

// ScenarioInfo describes a scenario for the picker and the header.
type ScenarioInfo struct {
	Name    string
	Level   string // beginner | intermediate | advanced
	Title   flow.Text
	Summary flow.Text
	Steps   int
}

// Session is one running scenario on its own cluster. Every method is
// safe for concurrent use.
type Session interface {
	// Events is every flow event of this cluster, in recording order
	// (a subscription of the cluster's Recorder, bounded: when the TUI
	// falls behind it loses events, the cluster never waits for it). It
	// is closed when the session ends (Close).
	Events() <-chan flow.Event
	// Steps is the scenario's progress: one update when a step starts
	// (Done false) and one when it ends (Done true, Result, Err). It is
	// closed when the scenario ends.
	Steps() <-chan StepUpdate
	// Gate is the cluster's real gate: the TUI calls SetMode, Advance
	// and SetDelay on it.
	Gate() *flow.Gate
	// Kubeconfig is the path of the admin kubeconfig ("" for a replay,
	// which has no cluster), shown as
	// `export KUBECONFIG=...` so that kubectl in a second terminal sees
	// the same cluster.
	Kubeconfig() string
	// RESTConfig is the admin config for the TUI's own watches (event
	// log, cluster view). Nil disables them.
	RESTConfig() *rest.Config
	// History returns etcd's value of key at revision rev (MVCC), for
	// the etcd tab's diffs; an error when it was compacted or never
	// existed.
	History(ctx context.Context, key string, rev int64) ([]byte, error)
	// Done is closed when the scenario has finished (every step ran, or
	// one failed). The cluster keeps running until Close.
	Done() <-chan struct{}
	// Err is, after Done, nil when every expectation held, else what
	// failed.
	Err() error
	// Close stops the scenario and its cluster and closes Events. Safe
	// to call more than once.
	Close() error
}

// StepUpdate is a scenario step starting (Done false) or ending (Done
// true).
type StepUpdate struct {
	// Index counts the steps from 1; Total is their number.
	Index, Total int
	ID           string
	Narration    flow.Text
	// Action says what the step does, for people ("apply Pod
	// default/nginx", "http GET /api/v1/pods (watch, HTTP/1.1)").
	Action string
	Done   bool
	// Result says what the action returned ("created", "403 Forbidden").
	Result string
	// Transcript is the step's evidence line by line in both languages
	// (an http action's request and response as they crossed the wire,
	// HTTP/2 frames, a scoreboard...), when Done; nil for most steps.
	Transcript []flow.Text
	// Question, if not nil, is asked at the step's gate (the step has
	// started, its action waits at flow.PointNextStep); Answer is, when
	// Done, the index of the choice the run made true (-1: none did).
	Question *Question
	Answer   int
	// Err is the failed expectation or action error, when Done.
	Err error
	// RequestIDs are, when Done, the audit IDs of the requests the
	// step's action made, in order (its requests in the request tab are
	// exactly these).
	RequestIDs []string
}

// Question is a step's question for the learner, with its choices in the
// order shown.
type Question struct {
	Ask     flow.Text
	Choices []flow.Text
}

// Options configure Run.
type Options struct {
	// Scenario is the scenario to start with; empty opens the picker.
	Scenario string
	// Mode is the gate mode to start in: flow.ModeAuto or flow.ModeStep
	// (flow.ModeOff is taken as auto).
	Mode flow.Mode
	// Speed is the initial speed (see StartOptions); 0 means no delay.
	Speed float64
	// Lang is "en" or "zh".
	Lang string
	// NoColor turns colours off; so does a non-empty NO_COLOR in the
	// environment.
	NoColor bool
	// Markdown, when set, is a file the walkthrough of every scenario
	// played is written to (with the real evidence) when Run returns.
	Markdown string
	// Record, when set, is a file the session is recorded to as an
	// asciicast v2 recording (asciinema play FILE).
	Record string
	// Input and Output are the terminal (os.Stdin, os.Stdout when nil).
	Input  io.Reader
	Output io.Writer
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Present is the presenter's mode, for a teacher at a projector:
	// the whole narration is shown whatever the mode, scrolled with page
	// up/down when it does not fit (present.go).
	Present bool
}

// AutoDelay is the gate's auto-mode delay at speed: flow.DefaultAutoDelay
// divided by speed, and 0 for speed 0.
func AutoDelay(speed float64) time.Duration {
	if speed <= 0 {
		return 0
	}
	return time.Duration(float64(flow.DefaultAutoDelay) / speed)
}
