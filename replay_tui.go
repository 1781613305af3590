package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/recording"
	"github.com/kubesim/kubesim/tui"
)

// replayTUI replays rec in the terminal UI until the learner quits.
func replayTUI(ctx context.Context, rec *recording.Recording, o replayOptions, stdin io.Reader, stdout io.Writer) error {
	mode := flow.ModeAuto
	if o.step {
		mode = flow.ModeStep
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	return tui.Run(ctx, &replayDriver{rec: rec}, tui.Options{
		Scenario: rec.Header.Scenario.Name, Mode: mode, Speed: o.speed, Lang: o.lang, NoColor: noColor,
		Input: stdin, Output: stdout,
	})
}

// replayDriver is the tui.Driver of a replay: its one scenario is the
// recorded one, and each Start plays the recording again from its
// beginning.
type replayDriver struct {
	rec *recording.Recording
}

func (d *replayDriver) Scenarios() []tui.ScenarioInfo {
	s := d.rec.Header.Scenario
	return []tui.ScenarioInfo{{Name: s.Name, Level: s.Level, Title: s.Title, Summary: s.Summary, Steps: s.Steps}}
}

// Start replays the recording on a session of its own: a recorder the
// TUI reads the events from and a gate that holds at the boundaries the
// recorded pods crossed, as a cluster's would.
func (d *replayDriver) Start(_ context.Context, name string, opts tui.StartOptions) (tui.Session, error) {
	if name != d.rec.Header.Scenario.Name {
		return nil, fmt.Errorf("this replay holds %s only", d.rec.Header.Scenario.Name)
	}
	r := flow.NewRecorder()
	runCtx, cancel := context.WithCancel(context.Background())
	s := &replaySession{rec: d.rec, sub: r.Subscribe(1 << 16), gate: flow.NewGate(opts.Mode, tui.AutoDelay(opts.Speed), r),
		cancel: cancel, steps: make(chan tui.StepUpdate, 64), done: make(chan struct{}), history: replayHistory(d.rec)}
	b := &replayBoundaries{gate: s.gate, last: map[types.UID]flow.Stage{}, kubelet: map[types.UID]string{}, containers: map[types.UID]bool{}}
	go func() {
		defer close(s.done)
		defer close(s.steps)
		obs := replayEvents{steps: stepSender{ctx: runCtx, ch: s.steps}, rec: r}
		s.err = d.rec.Feed(runCtx, obs, recording.FeedOptions{Speed: opts.Speed, Before: b.before, After: b.after})
	}()
	return s, nil
}

// replayKey names a value of a key at a revision.
type replayKey struct {
	key string
	rev int64
}

// replayHistory is the etcd values the recording's events carry, by key
// and revision: what the TUI's etcd tab diffs against.
func replayHistory(rec *recording.Recording) map[replayKey]string {
	out := map[replayKey]string{}
	for i := range rec.Entries {
		if e := rec.Entries[i].Event; e != nil && e.Etcd != nil && e.Etcd.Op != "delete" {
			out[replayKey{e.Etcd.Key, e.Etcd.Revision}] = e.Etcd.Value
		}
	}
	return out
}

// replaySession is one replay of a recording. Safe for concurrent use.
type replaySession struct {
	rec     *recording.Recording
	sub     *flow.Subscription
	gate    *flow.Gate
	cancel  context.CancelFunc
	steps   chan tui.StepUpdate
	done    chan struct{}
	err     error // written before done is closed
	history map[replayKey]string

	closeOnce sync.Once
}

func (s *replaySession) Events() <-chan flow.Event    { return s.sub.Events() }
func (s *replaySession) Steps() <-chan tui.StepUpdate { return s.steps }
func (s *replaySession) Gate() *flow.Gate             { return s.gate }
func (s *replaySession) Kubeconfig() string           { return "" } // no cluster
func (s *replaySession) RESTConfig() *rest.Config     { return nil }
func (s *replaySession) Done() <-chan struct{}        { return s.done }

// Err is nil while the replay plays, then the recorded run's error.
func (s *replaySession) Err() error {
	select {
	case <-s.done:
		if errors.Is(s.err, context.Canceled) {
			return nil
		}
		return s.err
	default:
		return nil
	}
}

// History is the value of key at rev, when the recording has it.
func (s *replaySession) History(_ context.Context, key string, rev int64) ([]byte, error) {
	v, ok := s.history[replayKey{key, rev}]
	if !ok {
		return nil, fmt.Errorf("the recording has no value of %s at revision %d", key, rev)
	}
	return []byte(v), nil
}

// Close stops the replay. Safe to call more than once.
func (s *replaySession) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.gate.SetMode(flow.ModeOff)
		<-s.done
		s.sub.Close()
	})
	return nil
}

// replayBoundaries holds the replay at the boundaries the recorded run's
// gate was asked about: before each step's action (the runner's), and
// for each pod between one stage and the next, as its components held
// (flow.Point); the gate's mode says for how long. Feed calls it from one
// goroutine.
type replayBoundaries struct {
	gate       *flow.Gate
	last       map[types.UID]flow.Stage // the last stage shown of each pod
	kubelet    map[types.UID]string     // the kubelet that has each pod
	containers map[types.UID]bool       // the pod's containers were made
}

// before holds, before a pod's event of a later stage, at the point that
// follows its last; before its first runtime action, at
// PointBeforeContainers.
func (b *replayBoundaries) before(ctx context.Context, e *recording.Entry) error {
	ev := e.Event
	if e.Kind != recording.KindEvent || ev.Stage == 0 {
		return nil
	}
	uid := ev.Object.UID
	if strings.HasPrefix(ev.Component, "kubelet/") {
		b.kubelet[uid] = ev.Component
	}
	last := b.last[uid]
	if ev.Stage > last {
		b.last[uid] = ev.Stage
		if p, ok := pointAfter(last); ok {
			if err := b.hold(ctx, p, ev.Object); err != nil {
				return err
			}
		}
	}
	if ev.Runtime != nil && ev.Stage == flow.StageKubeletNotified && !b.containers[uid] {
		b.containers[uid] = true
		return b.hold(ctx, flow.PointBeforeContainers, ev.Object)
	}
	return nil
}

// after holds after a step's start, where the runner waits before its
// action.
func (b *replayBoundaries) after(ctx context.Context, e *recording.Entry) error {
	if e.Kind != recording.KindStep {
		return nil
	}
	st := e.Step
	return b.gate.Wait(ctx, flow.Boundary{Point: flow.PointNextStep, Component: "scenario",
		Object: flow.ObjectRef{Kind: "Step", Name: fmt.Sprintf("%d/%d %s", st.Index, st.Total, st.ID)}})
}

// hold waits at point p for pod, named by the component that waits there.
func (b *replayBoundaries) hold(ctx context.Context, p flow.Point, pod flow.ObjectRef) error {
	c := "apiserver"
	switch p {
	case flow.PointBeforeScheduling, flow.PointBeforeBinding:
		c = "scheduler"
	case flow.PointBeforeContainers, flow.PointBeforeStatusReport:
		if k := b.kubelet[pod.UID]; k != "" {
			c = k
		} else {
			c = "kubelet"
		}
	}
	return b.gate.Wait(ctx, flow.Boundary{Point: p, Component: c, Object: pod})
}

// pointAfter is the first point reached when stage s is complete.
func pointAfter(s flow.Stage) (flow.Point, bool) {
	for _, p := range flow.Points {
		if p.After() == s && p != flow.PointBeforeContainers {
			return p, true
		}
	}
	return "", false
}

// replayEvents is an observer that hands steps to steps and records
// events into rec (the TUI replay's session).
type replayEvents struct {
	steps scenarios.Observer
	rec   *flow.Recorder
}

func (r replayEvents) StepStarted(s scenarios.StepInfo) { r.steps.StepStarted(s) }
func (r replayEvents) StepFinished(s scenarios.StepInfo, res scenarios.StepResult) {
	r.steps.StepFinished(s, res)
}
func (r replayEvents) Event(ev flow.Event) { r.rec.Record(ev) }
