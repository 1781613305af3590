package filters

import (
	"context"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestSeatsQueue: with its one seat taken, a level's next request waits
// and gets the seat once it is released; past the queue's limit a request
// is refused at once; a wait that runs out or is cancelled gets nothing;
// a limit without a queue refuses at once.
func TestSeatsQueue(t *testing.T) {
	ctx := context.Background()
	s := newSeats(1, 1)
	if !s.acquire(ctx, time.Hour) {
		t.Fatal("the free seat was not taken")
	}
	got := make(chan bool)
	go func() { got <- s.acquire(ctx, time.Hour) }()
	deadline := time.Now().Add(waitfor.Bound)
	for s.waiting.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the second request never waited")
		}
		time.Sleep(time.Millisecond)
	}
	if s.acquire(ctx, time.Hour) {
		t.Error("a request past the queue's limit got a seat")
	}
	s.release()
	if !<-got {
		t.Error("the waiting request did not get the released seat")
	}
	if s.acquire(ctx, time.Millisecond) {
		t.Error("a wait that ran out got a seat")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if s.acquire(cancelled, time.Hour) {
		t.Error("a cancelled wait got a seat")
	}
	if s.waiting.Load() != 0 {
		t.Errorf("%d still waiting", s.waiting.Load())
	}
	limit := newSeats(1, 0)
	limit.acquire(ctx, time.Hour)
	if limit.acquire(ctx, time.Hour) {
		t.Error("a limit without a queue let a second request wait and in")
	}
}
