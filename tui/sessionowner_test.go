package tui

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesim/kubesim/internal/flow"
)

// closeErrSession is a session whose Close fails.
type closeErrSession struct{ *fakeSession }

func (s closeErrSession) Close() error { _ = s.fakeSession.Close(); return errors.New("close failed") }

func newTestSession(t *testing.T) *fakeSession {
	t.Helper()
	s := newFakeSession(StartOptions{Mode: flow.ModeAuto})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// startWith is a start function for replace that returns s and counts
// its calls.
func startWith(s Session, calls *int) func(context.Context) (Session, error) {
	return func(context.Context) (Session, error) {
		*calls++
		return s, nil
	}
}

// TestSessionOwnerReplace: replace closes the session it replaces and
// owns the one it starts; closeAll closes what is still owned.
func TestSessionOwnerReplace(t *testing.T) {
	o := newSessionOwner(context.Background())
	first, second := newTestSession(t), newTestSession(t)
	calls := 0
	s, ok, err := o.replace(nil, nil, startWith(first, &calls))
	if s != Session(first) || !ok || err != nil {
		t.Fatalf("replace(nil) = %v, %v, %v; want the first session, true, nil", s, ok, err)
	}
	s, ok, err = o.replace(first, nil, startWith(second, &calls))
	if s != Session(second) || !ok || err != nil {
		t.Fatalf("replace(first) = %v, %v, %v; want the second session, true, nil", s, ok, err)
	}
	if !first.isClosed() || second.isClosed() {
		t.Errorf("after replace: first closed %v, second closed %v; want true, false", first.isClosed(), second.isClosed())
	}
	if err := o.closeAll(); err != nil {
		t.Errorf("closeAll = %v, want nil", err)
	}
	if !second.isClosed() {
		t.Error("closeAll left the second session open")
	}
	if calls != 2 {
		t.Errorf("start called %d times, want 2", calls)
	}
}

// TestSessionOwnerStartError: a failed start is returned and owns
// nothing; the session it replaced is closed all the same.
func TestSessionOwnerStartError(t *testing.T) {
	o := newSessionOwner(context.Background())
	old := newTestSession(t)
	o.add(old, nil)
	boom := errors.New("boom")
	s, ok, err := o.replace(old, nil, func(context.Context) (Session, error) { return nil, boom })
	if s != nil || !ok || !errors.Is(err, boom) {
		t.Fatalf("replace = %v, %v, %v; want nil, true, boom", s, ok, err)
	}
	if !old.isClosed() {
		t.Error("the replaced session is still open")
	}
	if n := len(o.open); n != 0 {
		t.Errorf("the owner holds %d sessions, want 0", n)
	}
}

// TestSessionOwnerClosed: once closed, replace starts nothing and add
// closes what it is given.
func TestSessionOwnerClosed(t *testing.T) {
	o := newSessionOwner(context.Background())
	if err := o.closeAll(); err != nil {
		t.Fatal(err)
	}
	calls := 0
	if s, ok, err := o.replace(nil, nil, startWith(newTestSession(t), &calls)); s != nil || ok || err != nil || calls != 0 {
		t.Errorf("replace after closeAll = %v, %v, %v with %d starts; want nil, false, nil and none", s, ok, err, calls)
	}
	late := newTestSession(t)
	if o.add(late, nil) || !late.isClosed() {
		t.Errorf("add after closeAll kept the session (closed %v)", late.isClosed())
	}
}

// TestSessionOwnerCloseDuringStart: closeAll cancels a start in flight,
// waits for it, and closes the session it returned.
func TestSessionOwnerCloseDuringStart(t *testing.T) {
	o := newSessionOwner(context.Background())
	s := newTestSession(t)
	started := make(chan struct{})
	type result struct {
		s   Session
		ok  bool
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, ok, err := o.replace(nil, nil, func(ctx context.Context) (Session, error) {
			close(started)
			<-ctx.Done() // a Driver's Start ends with its context
			return s, nil
		})
		done <- result{got, ok, err}
	}()
	<-started
	if err := o.closeAll(); err != nil {
		t.Fatal(err)
	}
	// closeAll waited for the start: what it started is closed already
	if !s.isClosed() {
		t.Error("the session started during closeAll is open")
	}
	select {
	case r := <-done:
		if r.s != nil || r.ok || r.err != nil {
			t.Errorf("replace = %v, %v, %v; want nil, false, nil", r.s, r.ok, r.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("replace did not return")
	}
}

// TestSessionOwnerCloseAll: closeAll stops the watches and returns the
// sessions' Close errors.
func TestSessionOwnerCloseAll(t *testing.T) {
	o := newSessionOwner(context.Background())
	w := startKubeWatch(fake.NewSimpleClientset())
	o.add(closeErrSession{newTestSession(t)}, w)
	if err := o.closeAll(); err == nil || err.Error() != "close failed" {
		t.Errorf("closeAll = %v, want the session's close error", err)
	}
	stopped := make(chan []kubeEvent, 1)
	go func() { stopped <- w.nextEvents() }()
	select {
	case evs := <-stopped:
		if evs != nil {
			t.Errorf("nextEvents after closeAll = %v, want nil (stopped)", evs)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the watch still runs after closeAll")
	}
}
