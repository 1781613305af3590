package waitfor

import (
	"context"
	"fmt"
	"testing"
	"time"
)

const (
	// Stall is how long Progress lets the observed progress stand still
	// before it fails the test.
	Stall = 2 * time.Minute
	// Cap bounds a Progress wait whose progress keeps changing without
	// ever reaching its condition.
	Cap = 10 * time.Minute
	// Bound is the deadline of a wait that has nothing to observe but its
	// end, such as a process exiting, a line printed or one event
	// received. It is as long as Progress lets progress stand still.
	Bound = Stall
	// Interval is how often Progress polls by default.
	Interval = 25 * time.Millisecond
	// deadlineMargin is how long before the test binary's -timeout
	// Progress gives up at the latest, so the test fails with what it
	// waited for rather than the binary panicking.
	deadlineMargin = 20 * time.Second
)

// Poll is one look at the awaited state. It returns done once the state
// is reached. progress describes what it saw (for example "47 running").
// A value not seen before in the wait counts as progress and restarts the
// stall window. A repeated value is not progress, so a state that only
// flaps between values does not keep a wait alive. The last value is the
// "last seen" of the failure message. A non-nil err is a failed look.
// Progress retries it and reports it, but it is not progress. ctx ends
// when the wait gives up.
type Poll func(ctx context.Context) (done bool, progress string, err error)

// An Option changes how Progress waits.
type Option func(*options)

type options struct {
	stall, cap, every time.Duration
	// now and sleep are the clock, replaced in this package's tests.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration)
}

// StallAfter sets how long progress may stand still (default Stall).
func StallAfter(d time.Duration) Option { return func(o *options) { o.stall = d } }

// GiveUpAfter sets how long a wait may take in all, moving or not
// (default Cap).
func GiveUpAfter(d time.Duration) Option { return func(o *options) { o.cap = d } }

// PollEvery sets the pause between two polls (default Interval).
func PollEvery(d time.Duration) Option { return func(o *options) { o.every = d } }

// deadliner is the part of *testing.T that knows the binary's -timeout.
type deadliner interface {
	Deadline() (time.Time, bool)
}

// Progress calls poll until it reports done and fails tb when the
// reported progress has not changed for the stall window (Stall unless
// StallAfter says otherwise), or when the wait has taken Cap in all (or
// reaches shortly before tb's Deadline, if tb has one). The failure
// message names what was waited for and the last progress seen. Progress
// calls poll on the calling goroutine, which must be the test's, so poll
// may itself call tb.Fatal.
func Progress(tb testing.TB, what string, poll Poll, opts ...Option) {
	tb.Helper()
	o := options{stall: Stall, cap: Cap, every: Interval, now: time.Now, sleep: sleepCtx}
	for _, f := range opts {
		f(&o)
	}
	start := o.now()
	limit := start.Add(o.cap)
	if d, ok := tb.(deadliner); ok {
		if end, ok := d.Deadline(); ok && end.Add(-deadlineMargin).Before(limit) {
			limit = end.Add(-deadlineMargin)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit.Sub(start))
	defer cancel()
	seen := map[string]bool{}
	last := "nothing yet"
	var lastErr error
	moved := start
	for {
		done, progress, err := poll(ctx)
		if err == nil && done {
			return
		}
		now := o.now()
		if err != nil {
			lastErr = err
		} else {
			lastErr = nil
			last = progress
			if !seen[progress] {
				seen[progress] = true
				moved = now
			}
		}
		seenMsg := last
		if lastErr != nil {
			seenMsg = fmt.Sprintf("%s (the last look failed: %v)", last, lastErr)
		}
		switch {
		case now.Sub(moved) >= o.stall:
			tb.Fatalf("%s: not reached; no progress for %v (waited %v in all); last seen: %s",
				what, o.stall, now.Sub(start).Round(time.Millisecond), seenMsg)
			return
		case !now.Before(limit):
			tb.Fatalf("%s: not reached within %v, though still changing; last seen: %s",
				what, now.Sub(start).Round(time.Millisecond), seenMsg)
			return
		}
		o.sleep(ctx, o.every)
	}
}

// sleepCtx sleeps for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Cond adapts a condition that describes the state it saw to a Poll: the
// description is the progress, and the condition never fails a look.
func Cond(cond func() (ok bool, state string)) Poll {
	return func(context.Context) (bool, string, error) {
		ok, state := cond()
		return ok, state, nil
	}
}
