package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/recording"
	"github.com/kubesim/kubesim/tui"
)

// scenarioDriver is the TUI's tui.Driver: it plays scenarios of the library
// (or one file) on fresh clusters. All of them share one data directory,
// so the kubeconfig path a second terminal exported stays valid when the
// learner restarts; each session after the first starts from an empty
// etcd. The port, once picked, is kept too. Safe for concurrent use.
type scenarioDriver struct {
	dataDir string // fixed for the driver's life
	tempDir bool   // dataDir is ours, removed by Close
	file    *scenarios.Scenario

	mu      sync.Mutex
	port    int
	started int
	current *session
	// record, if not nil, records the first session started (play
	// --record-session); it is nil once that one has started.
	record *sessionFile
}

// newScenarioDriver returns a driver keeping its state in dataDir (a
// temporary directory when ""); extra, if not nil, is offered along with
// the library (a scenario played from a file).
func newScenarioDriver(dataDir string, port int, extra *scenarios.Scenario) (*scenarioDriver, error) {
	d := &scenarioDriver{dataDir: dataDir, port: port, file: extra}
	if dataDir == "" {
		dir, err := os.MkdirTemp("", "kubesim-")
		if err != nil {
			return nil, err
		}
		d.dataDir, d.tempDir = dir, true
	}
	return d, nil
}

// Close stops the running session, if any, and removes a temporary data
// directory.
func (d *scenarioDriver) Close() error {
	d.mu.Lock()
	s := d.current
	d.current = nil
	record := d.record // never started: nothing to keep
	d.mu.Unlock()
	record.Close()
	var err error
	if s != nil {
		err = s.Close()
	}
	if d.tempDir {
		err = errors.Join(err, os.RemoveAll(d.dataDir))
	}
	return err
}

func (d *scenarioDriver) find(name string) (*scenarios.Scenario, error) {
	if d.file != nil && name == d.file.Name {
		return d.file, nil
	}
	return scenarios.Find(name)
}

// Scenarios lists the library, and the scenario file first when there is one.
func (d *scenarioDriver) Scenarios() []tui.ScenarioInfo {
	var out []tui.ScenarioInfo
	add := func(s *scenarios.Scenario) {
		out = append(out, tui.ScenarioInfo{Name: s.Name, Level: s.Level, Title: s.Title, Summary: s.Summary, Steps: len(s.Steps)})
	}
	if d.file != nil {
		add(d.file)
	}
	lib, err := scenarios.Library()
	if err != nil {
		return out // the library is embedded and tested: not reached
	}
	for _, s := range lib {
		if d.file == nil || s.Name != d.file.Name {
			add(s)
		}
	}
	return out
}

// Start stops the current session, boots a cluster for the scenario and
// plays it.
func (d *scenarioDriver) Start(ctx context.Context, name string, opts tui.StartOptions) (tui.Session, error) {
	sc, err := d.find(name)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current != nil {
		_ = d.current.Close()
		d.current = nil
	}
	if d.started > 0 {
		// A restart starts from an empty cluster: etcd's data goes, the
		// certificates and tokens (and so the kubeconfigs) stay.
		if err := os.RemoveAll(filepath.Join(d.dataDir, "etcd")); err != nil {
			return nil, err
		}
	}
	d.started++

	cfg := scenarioCluster(sc, d.dataDir, d.port, opts.Speed, opts.Mode, tui.AutoDelay(opts.Speed))
	gate := cfg.Gate
	sub := cfg.Recorder.Subscribe(1 << 14)
	c, err := cluster.Start(ctx, cfg)
	if err != nil && d.port != 0 {
		cfg.Port = 0 // the port we had is taken now: any will do
		c, err = cluster.Start(ctx, cfg)
	}
	if err != nil {
		sub.Close()
		return nil, err
	}
	if u, err := url.Parse(c.URL); err == nil {
		if p, err := strconv.Atoi(u.Port()); err == nil {
			d.port = p
		}
	}
	restCfg, err := c.RESTConfigAs("admin")
	if err != nil {
		sub.Close()
		_ = c.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &session{c: c, gate: gate, sub: sub, rest: restCfg, cancel: cancel,
		steps: make(chan tui.StepUpdate, 64), done: make(chan struct{})}
	record := d.record
	d.record = nil
	var obs scenarios.Observer = stepSender{ctx: runCtx, ch: s.steps}
	if obs, err = record.start(sc, recording.Header{Lang: opts.Lang, Output: "tui", Speed: cfg.Speed}, obs); err != nil {
		record.Close()
		record = nil
	}
	go func() {
		defer close(s.done)
		defer close(s.steps)
		s.err = record.end(scenarios.Play(runCtx, c, sc, scenarios.Options{Lang: opts.Lang, Speed: cfg.Speed, Gate: gate, Observer: obs}))
	}()
	d.current = s
	return s, nil
}

// session is one scenario playing on its own cluster.
type session struct {
	c      *cluster.Cluster
	gate   *flow.Gate
	sub    *flow.Subscription
	rest   *rest.Config
	cancel context.CancelFunc
	steps  chan tui.StepUpdate
	done   chan struct{}
	err    error // written before done is closed

	closeOnce sync.Once
	closeErr  error
}

func (s *session) Events() <-chan flow.Event    { return s.sub.Events() }
func (s *session) Steps() <-chan tui.StepUpdate { return s.steps }
func (s *session) Gate() *flow.Gate             { return s.gate }
func (s *session) Kubeconfig() string           { return s.c.Kubeconfig }
func (s *session) RESTConfig() *rest.Config     { return rest.CopyConfig(s.rest) }
func (s *session) Done() <-chan struct{}        { return s.done }

// Err is nil while the scenario plays and when every expectation held.
func (s *session) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// History reads key as it was at revision rev from etcd's MVCC history.
func (s *session) History(ctx context.Context, key string, rev int64) ([]byte, error) {
	return etcdHistory(ctx, s.c, key, rev)
}

// etcdHistory reads key as it was at revision rev from c's etcd (MVCC);
// an error when it was compacted or did not exist then.
func etcdHistory(ctx context.Context, c *cluster.Cluster, key string, rev int64) ([]byte, error) {
	resp, err := c.EtcdClient().Get(ctx, key, clientv3.WithRev(rev))
	if err != nil {
		return nil, err
	}
	if len(resp.Kvs) == 0 {
		return nil, fmt.Errorf("%s did not exist at revision %d", key, rev)
	}
	return resp.Kvs[0].Value, nil
}

// Close stops the scenario (letting go whatever the gate holds) and the
// cluster. Safe to call more than once.
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.gate.SetMode(flow.ModeOff)
		<-s.done
		s.sub.Close()
		s.closeErr = s.c.Close()
	})
	return s.closeErr
}

// stepSender turns the scenario's step callbacks into tui.StepUpdates; it
// gives up on a send when the session is closed.
type stepSender struct {
	ctx context.Context
	ch  chan<- tui.StepUpdate
}

func (o stepSender) send(u tui.StepUpdate) {
	select {
	case o.ch <- u:
	case <-o.ctx.Done():
	}
}

func (o stepSender) StepStarted(s scenarios.StepInfo) {
	o.send(tui.StepUpdate{Index: s.Index, Total: s.Total, ID: s.ID, Narration: s.Narration, Action: s.Action, Question: tuiQuestion(s.Question)})
}

// tuiQuestion is q as the TUI shows it (nil for nil).
func tuiQuestion(q *scenarios.Question) *tui.Question {
	if q == nil {
		return nil
	}
	out := &tui.Question{Ask: q.Ask}
	for _, c := range q.Choices {
		out.Choices = append(out.Choices, c.Text)
	}
	return out
}

func (o stepSender) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	u := tui.StepUpdate{Index: s.Index, Total: s.Total, ID: s.ID, Narration: s.Narration, Action: s.Action, Done: true, Err: r.Err,
		Transcript: r.Transcript, Question: tuiQuestion(s.Question), Answer: r.Answer}
	for _, t := range r.Requests {
		u.RequestIDs = append(u.RequestIDs, t.AuditID)
	}
	switch {
	case r.Status != 0 && r.Message != "":
		u.Result = fmt.Sprintf("%d %s", r.Status, r.Message)
	case r.Status != 0:
		u.Result = strconv.Itoa(r.Status)
	default:
		u.Result = r.Message
	}
	o.send(u)
}

// kubeconfig is the admin kubeconfig of the session playing ("" when
// none is).
func (d *scenarioDriver) kubeconfig() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current == nil {
		return ""
	}
	return d.current.c.Kubeconfig
}
