package waitfor

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeTB records the first Fatalf and ends the goroutine that called it,
// as testing.T does.
type fakeTB struct {
	testing.TB // nil: calling anything not overridden panics
	failed     string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// deadlineTB is a fakeTB whose binary has a -timeout.
type deadlineTB struct {
	*fakeTB
	deadline time.Time
}

func (d deadlineTB) Deadline() (time.Time, bool) { return d.deadline, true }

// fakeClock is a clock that moves only when the waiter sleeps.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time                           { return c.t }
func (c *fakeClock) sleep(_ context.Context, d time.Duration) { c.t = c.t.Add(d) }

// run runs Progress on its own goroutine (Fatalf ends it) with the fake
// clock, and returns the failure message ("" if it returned) and how
// long the wait took on that clock.
func run(tb testing.TB, f *fakeTB, poll Poll, opts ...Option) (string, time.Duration) {
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	start := clock.t
	opts = append(opts, func(o *options) { o.now, o.sleep = clock.now, clock.sleep })
	done := make(chan struct{})
	go func() {
		defer close(done)
		Progress(tb, "100 pods Running", poll, opts...)
	}()
	<-done
	return f.failed, clock.t.Sub(start)
}

// counter is a poll that reports n, n+step, ... and is done when it
// reaches end.
func counter(step, end int) Poll {
	n := 0
	return func(context.Context) (bool, string, error) {
		n += step
		return n >= end, strconv.Itoa(n) + " running", nil
	}
}

func TestProgress(t *testing.T) {
	const stall, every = time.Second, 100 * time.Millisecond
	flap := 0
	failing := 0
	tests := []struct {
		name     string
		poll     Poll
		opts     []Option
		wantFail []string // substrings of the failure; nil: no failure
		wantTook time.Duration
	}{
		{"done at once", counter(1, 1), nil, nil, 0},
		// 300 polls: 30 s, thirty stall windows, but it moves at every poll.
		{"slow but moving", counter(1, 300), nil, nil, 299 * every},
		{"stalled", func(context.Context) (bool, string, error) { return false, "47 running", nil }, nil,
			[]string{"100 pods Running: not reached; no progress for 1s", "last seen: 47 running"}, stall},
		{"flapping is not progress", func(context.Context) (bool, string, error) {
			flap++
			return false, strconv.Itoa(47+flap%2) + " running", nil
		}, nil, []string{"no progress for 1s", "last seen: 4"}, stall + every}, // 48, then 47 once: new at the second poll
		{"moving past the cap", counter(1, 1<<30), []Option{GiveUpAfter(10 * time.Second)},
			[]string{"not reached within 10s, though still changing", "last seen: 101 running"}, 10 * time.Second},
		{"failed looks are not progress", func(context.Context) (bool, string, error) {
			failing++
			if failing == 1 {
				return false, "3 running", nil
			}
			return false, "", errors.New("connection refused " + strconv.Itoa(failing))
		}, nil, []string{"no progress for 1s", "last seen: 3 running (the last look failed: connection refused"}, stall},
		{"a failed look that says done is not done", func(context.Context) (bool, string, error) {
			return true, "", errors.New("boom")
		}, nil, []string{"last seen: nothing yet (the last look failed: boom)"}, stall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeTB{}
			got, took := run(f, f, tt.poll, append([]Option{StallAfter(stall), PollEvery(every)}, tt.opts...)...)
			if tt.wantFail == nil && got != "" {
				t.Errorf("failed: %s", got)
			}
			if tt.wantFail != nil && got == "" {
				t.Errorf("returned, want a failure saying %q", tt.wantFail)
			}
			for _, w := range tt.wantFail {
				if !strings.Contains(got, w) {
					t.Errorf("failure %q does not say %q", got, w)
				}
			}
			if took != tt.wantTook {
				t.Errorf("waited %v on the fake clock, want %v", took, tt.wantTook)
			}
		})
	}
}

// TestProgressBeforeTheBinaryTimeout: a wait that keeps moving gives up
// before the test binary's -timeout, so the failure says what it waited
// for instead of the binary panicking.
func TestProgressBeforeTheBinaryTimeout(t *testing.T) {
	f := &fakeTB{}
	tb := deadlineTB{f, time.Date(2025, 1, 1, 0, 5, 0, 0, time.UTC)} // 5 min after the fake clock's start
	got, took := run(tb, f, counter(1, 1<<30), PollEvery(time.Second))
	if want := 5*time.Minute - deadlineMargin; took != want {
		t.Errorf("gave up after %v, want %v (the deadline less the margin)", took, want)
	}
	if !strings.Contains(got, "though still changing") {
		t.Errorf("failure %q, want it to say the wait was still changing", got)
	}
}

// TestProgressReal waits on the real clock with the defaults for a
// condition that holds after a few polls.
func TestProgressReal(t *testing.T) {
	n := 0
	Progress(t, "three polls", Cond(func() (bool, string) {
		n++
		return n == 3, strconv.Itoa(n)
	}))
	if n != 3 {
		t.Errorf("polled %d times, want 3", n)
	}
}
