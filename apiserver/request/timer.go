package request

import (
	"context"
	"sync"
	"time"
)

// PausableTimer calls f once, after d of running time: time spent paused
// does not count. The request timeout and a watch's length use it, so that
// a gate hold (see flow.Gate) never makes them run out. Safe for
// concurrent use.
type PausableTimer struct {
	f func()

	mu        sync.Mutex
	timer     *time.Timer
	deadline  time.Time     // while running
	remaining time.Duration // while paused
	paused    int           // pauses not yet resumed
	stopped   bool
}

// NewPausableTimer starts a timer that calls f after d.
func NewPausableTimer(d time.Duration, f func()) *PausableTimer {
	p := &PausableTimer{f: f, deadline: time.Now().Add(d)}
	p.timer = time.AfterFunc(d, f)
	return p
}

// Pause stops the clock until the returned resume is called (resume may
// be called more than once; only the first call counts). Pauses nest: the
// clock runs again when every pause is resumed. A timer that has fired or
// been stopped stays so.
func (p *PausableTimer) Pause() (resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused == 0 {
		if p.stopped || !p.timer.Stop() {
			return func() {}
		}
		p.remaining = time.Until(p.deadline)
	}
	p.paused++
	var once sync.Once
	return func() { once.Do(p.resume) }
}

func (p *PausableTimer) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused--
	if p.paused > 0 || p.stopped {
		return
	}
	p.deadline = time.Now().Add(p.remaining)
	p.timer.Reset(p.remaining)
}

// Stop ends the timer; f is not called afterwards (unless it has started).
func (p *PausableTimer) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	p.timer.Stop()
}

type timeoutTimerKey struct{}

// WithTimeoutTimer makes t the timer that PauseRequestTimeout pauses.
func WithTimeoutTimer(ctx context.Context, t *PausableTimer) context.Context {
	return context.WithValue(ctx, timeoutTimerKey{}, t)
}

// PauseRequestTimeout stops the clock of the request timeout (withTimeout)
// of the request ctx belongs to, until resume is called. Handlers call it
// around a gate hold. Without a request timeout it does nothing.
func PauseRequestTimeout(ctx context.Context) (resume func()) {
	t, ok := ctx.Value(timeoutTimerKey{}).(*PausableTimer)
	if !ok {
		return func() {}
	}
	return t.Pause()
}
