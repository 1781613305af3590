package main

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/tui"
)

// teeDriver is a tui.Driver that passes everything to Driver and keeps,
// for the test, the sessions it started and a copy of their flow events:
// the test compares what a page shows with what the run recorded.
type teeDriver struct {
	tui.Driver

	mu       sync.Mutex
	sessions []*teeSession
}

// Start starts name on the wrapped driver and returns its session, whose
// events are copied as they pass.
func (d *teeDriver) Start(ctx context.Context, name string, opts tui.StartOptions) (tui.Session, error) {
	s, err := d.Driver.Start(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	ts := &teeSession{Session: s, out: make(chan flow.Event, 1024), stop: make(chan struct{})}
	ts.wg.Add(1)
	go ts.forward()
	d.mu.Lock()
	d.sessions = append(d.sessions, ts)
	d.mu.Unlock()
	return ts, nil
}

// session waits until the driver has started n sessions and returns the
// n-th (from 1).
func (d *teeDriver) session(t *testing.T, n int) *teeSession {
	t.Helper()
	var s *teeSession
	waitfor.Progress(t, "the web server starts its lesson", waitfor.Cond(func() (bool, string) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if len(d.sessions) >= n {
			s = d.sessions[n-1]
			return true, ""
		}
		return false, fmt.Sprintf("%d sessions started", len(d.sessions))
	}))
	return s
}

// teeSession is a session whose flow events are copied on their way to
// the web server. Its goroutine (forward) ends when the wrapped session's
// events end or when Close is called, and Close waits for it.
type teeSession struct {
	tui.Session
	out  chan flow.Event
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup

	mu     sync.Mutex
	events []flow.Event
}

// Events returns the copied stream (the same channel on every call).
func (s *teeSession) Events() <-chan flow.Event { return s.out }

// forward copies the wrapped session's events to out until they end or
// Close; a reader of out that stops reading holds only this goroutine
// (the wrapped channel is bounded and drops, as the Session says).
func (s *teeSession) forward() {
	defer s.wg.Done()
	defer close(s.out)
	in := s.Session.Events()
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			s.mu.Lock()
			s.events = append(s.events, ev)
			s.mu.Unlock()
			select {
			case s.out <- ev:
			case <-s.stop:
				return
			}
		case <-s.stop:
			return
		}
	}
}

// Close closes the wrapped session and waits for forward.
func (s *teeSession) Close() error {
	err := s.Session.Close()
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
	return err
}

// recorded returns the events copied so far, in recording order.
func (s *teeSession) recorded() []flow.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]flow.Event(nil), s.events...)
}
