package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

// fakeDriver starts fakeSessions: the test sends their events and steps.
type fakeDriver struct {
	mu       sync.Mutex
	sessions []*fakeSession
	started  chan *fakeSession
}

func newFakeDriver() *fakeDriver { return &fakeDriver{started: make(chan *fakeSession, 8)} }

func (d *fakeDriver) Scenarios() []tui.ScenarioInfo {
	return []tui.ScenarioInfo{{Name: "lesson", Title: flow.Text{En: "A lesson", Zh: "一课"}, Steps: 2}}
}

func (d *fakeDriver) Start(_ context.Context, name string, opts tui.StartOptions) (tui.Session, error) {
	if name != "lesson" {
		return nil, errors.New("no scenario " + name)
	}
	rec := flow.NewRecorder()
	s := &fakeSession{rec: rec, sub: rec.Subscribe(1024), gate: flow.NewGate(opts.Mode, tui.AutoDelay(opts.Speed), rec),
		steps: make(chan tui.StepUpdate, 16), done: make(chan struct{})}
	d.mu.Lock()
	d.sessions = append(d.sessions, s)
	d.mu.Unlock()
	d.started <- s
	return s, nil
}

type fakeSession struct {
	rec   *flow.Recorder
	sub   *flow.Subscription
	gate  *flow.Gate
	steps chan tui.StepUpdate
	done  chan struct{}
	once  sync.Once
}

func (s *fakeSession) Events() <-chan flow.Event    { return s.sub.Events() }
func (s *fakeSession) Steps() <-chan tui.StepUpdate { return s.steps }
func (s *fakeSession) Gate() *flow.Gate             { return s.gate }
func (s *fakeSession) Kubeconfig() string           { return "" }
func (s *fakeSession) RESTConfig() *rest.Config     { return nil }
func (s *fakeSession) Done() <-chan struct{}        { return s.done }
func (s *fakeSession) Err() error                   { return nil }
func (s *fakeSession) History(context.Context, string, int64) ([]byte, error) {
	return nil, errors.New("no history")
}
func (s *fakeSession) Close() error {
	s.once.Do(func() { s.gate.SetMode(flow.ModeOff); s.sub.Close() })
	return nil
}

// finish ends the scenario: its steps channel closes, Done too.
func (s *fakeSession) finish() {
	close(s.steps)
	close(s.done)
}

// startServer starts a Server on a fake driver, in step mode, and
// returns it with its first session.
func startServer(t *testing.T) (*Server, *fakeDriver, *fakeSession) {
	t.Helper()
	d := newFakeDriver()
	srv, err := New(Config{Driver: d, Scenario: "lesson", Start: tui.StartOptions{Mode: flow.ModeStep, Speed: 1, Lang: "en"}, Key: "sesame"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, d, <-d.started
}

// stream is one page's event stream, read message by message.
type stream struct {
	t    *testing.T
	resp *http.Response
	msgs chan streamMsg
}

type streamMsg struct {
	ID   string
	Data map[string]any
}

// openStream opens /api/events with the query and Last-Event-ID given.
func openStream(t *testing.T, srv *Server, query, lastID string) *stream {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL()+"api/events"+query, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		t.Fatalf("GET /api/events%s: %s, want 200", query, resp.Status)
	}
	s := &stream{t: t, resp: resp, msgs: make(chan streamMsg, 1024)}
	go s.read()
	t.Cleanup(func() { resp.Body.Close() })
	return s
}

func (s *stream) read() {
	defer close(s.msgs)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var m streamMsg
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			m.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m.Data)
		case line == "" && m.Data != nil:
			s.msgs <- m
			m = streamMsg{}
		}
	}
}

// waitFor reads messages until one of type typ for which ok holds (nil:
// any), failing when the stream ends or nothing comes for a long time.
func (s *stream) waitFor(typ string, ok func(map[string]any) bool) streamMsg {
	s.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case m, open := <-s.msgs:
			if !open {
				s.t.Fatalf("the stream ended before a %q message", typ)
			}
			if (typ == "" || m.Data["t"] == typ) && (ok == nil || ok(m.Data)) {
				return m
			}
		case <-deadline:
			s.t.Fatalf("no %q message in 2 minutes", typ)
		}
	}
}

// post sends body to path with the key (none when "") and returns the
// status code.
func post(t *testing.T, srv *Server, path, key, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL()+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
