package main

import (
	"context"
	"errors"
	"io"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
	"github.com/kubesim/kubesim/web"
)

// serveDriver is the web view's driver for serve: its one session is the
// running cluster, whatever kubectl (or any client) does to it; no
// lesson plays and none restarts.
type serveDriver struct {
	c *cluster.Cluster
}

func (d serveDriver) Scenarios() []tui.ScenarioInfo { return nil }

// Start follows the cluster from now on: its flow events and its gate.
func (d serveDriver) Start(context.Context, string, tui.StartOptions) (tui.Session, error) {
	if d.c.Recorder == nil || d.c.Gate == nil {
		return nil, errors.New("the cluster has no flow recorder and gate to show")
	}
	rest, err := d.c.RESTConfigAs("admin")
	if err != nil {
		return nil, err
	}
	return &serveSession{c: d.c, sub: d.c.Recorder.Subscribe(1 << 14), rest: rest}, nil
}

// serveSession is the running cluster as a tui.Session: its events, its
// gate; no steps, and it is never done (serve runs until Ctrl-C).
type serveSession struct {
	c    *cluster.Cluster
	sub  *flow.Subscription
	rest *rest.Config
}

func (s *serveSession) Events() <-chan flow.Event    { return s.sub.Events() }
func (s *serveSession) Steps() <-chan tui.StepUpdate { return nil }
func (s *serveSession) Gate() *flow.Gate             { return s.c.Gate }
func (s *serveSession) Kubeconfig() string           { return s.c.Kubeconfig }
func (s *serveSession) RESTConfig() *rest.Config     { return rest.CopyConfig(s.rest) }
func (s *serveSession) Done() <-chan struct{}        { return nil }
func (s *serveSession) Err() error                   { return nil }

func (s *serveSession) History(ctx context.Context, key string, rev int64) ([]byte, error) {
	return etcdHistory(ctx, s.c, key, rev)
}

// Close stops following the cluster and lets whatever the gate holds go;
// the cluster runs on (serve closes it).
func (s *serveSession) Close() error {
	s.c.Gate.SetMode(flow.ModeOff)
	s.sub.Close()
	return nil
}

// serveWebView starts serve's web view on addr ("" for none) and says
// on out where to open it; stop closes it.
func serveWebView(ctx context.Context, c *cluster.Cluster, addr string, out io.Writer) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	srv, err := web.New(web.Config{Addr: addr, Driver: serveDriver{c: c}, NoRestart: true,
		Start: tui.StartOptions{Mode: flow.ModeOff, Speed: 1, Lang: "en"}})
	if err != nil {
		return nil, err
	}
	if err := srv.Start(ctx); err != nil {
		_ = srv.Close()
		return nil, err
	}
	printWebURLs(out, srv)
	return func() { _ = srv.Close() }, nil
}
