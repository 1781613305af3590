package tui

import (
	"context"
	"errors"
	"sync"
)

// sessionOwner owns the sessions the TUI starts and the watches it opens
// on their clusters, so that Run closes whatever is still open when the
// program ends. The model's commands call it from their goroutines;
// replace runs one start at a time, so the Driver gets one call at a
// time. Safe for concurrent use.
type sessionOwner struct {
	// ctx is cancelled by closeAll: it ends the Driver calls and
	// History reads still running.
	ctx    context.Context
	cancel context.CancelFunc

	startMu  sync.Mutex // held by replace: one start at a time
	mu       sync.Mutex // guards open, watches and closed
	open     map[Session]bool
	watches  map[*kubeWatch]bool
	closed   bool
	inflight sync.WaitGroup // the replace calls running
}

// newSessionOwner returns an owner whose context ends with ctx.
func newSessionOwner(ctx context.Context) *sessionOwner {
	ctx, cancel := context.WithCancel(ctx)
	return &sessionOwner{ctx: ctx, cancel: cancel, open: map[Session]bool{}, watches: map[*kubeWatch]bool{}}
}

// replace stops oldWatch and closes old (either may be nil), then starts
// a session with start, which gets a context that closeAll cancels. It
// returns the new session, now owned, or start's error. ok is false when
// the owner is closed, before the start (start is not called) or during
// it (the session it started is closed at once).
func (o *sessionOwner) replace(old Session, oldWatch *kubeWatch, start func(context.Context) (Session, error)) (s Session, ok bool, err error) {
	if !o.begin() {
		return nil, false, nil
	}
	defer o.inflight.Done()
	o.startMu.Lock()
	defer o.startMu.Unlock()
	if old != nil || oldWatch != nil {
		_ = o.drop(old, oldWatch)
	}
	s, err = start(o.ctx)
	if err != nil {
		return nil, true, err
	}
	if !o.add(s, nil) {
		return nil, false, nil
	}
	return s, true, nil
}

// begin counts a replace in flight; false when the owner is closed.
func (o *sessionOwner) begin() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.inflight.Add(1)
	return true
}

// add registers s and w (w may be nil); false (and both closed) when the
// owner is closed.
func (o *sessionOwner) add(s Session, w *kubeWatch) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		w.stop()
		_ = s.Close()
		return false
	}
	o.open[s] = true
	if w != nil {
		o.watches[w] = true
	}
	return true
}

// drop stops w and closes s (either may be nil) and forgets them.
func (o *sessionOwner) drop(s Session, w *kubeWatch) error {
	o.mu.Lock()
	delete(o.open, s)
	delete(o.watches, w)
	o.mu.Unlock()
	w.stop()
	if s == nil {
		return nil
	}
	return s.Close()
}

// closeAll cancels the starts in flight and waits for them, then closes
// every session and watch still open; later adds are closed at once. It
// returns the sessions' Close errors.
func (o *sessionOwner) closeAll() error {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.cancel()
	o.inflight.Wait()
	o.mu.Lock()
	open, watches := o.open, o.watches
	o.open, o.watches = map[Session]bool{}, map[*kubeWatch]bool{}
	o.mu.Unlock()
	var errs []error
	for w := range watches {
		w.stop()
	}
	for s := range open {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
