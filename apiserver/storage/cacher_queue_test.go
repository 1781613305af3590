package storage

import (
	"testing"
	"time"
)

// A watcher's buffer starts at 10 items and takes up to its limit, in
// order, growing behind the channel; drained, it lets the growth go.
func TestFeedQueueGrowsToItsLimit(t *testing.T) {
	q := newFeedQueue(25)
	if cap(q.ch) != initialFeedSize {
		t.Fatalf("channel of %d, want %d", cap(q.ch), initialFeedSize)
	}
	for i := range 25 {
		if !q.offer(item{rev: int64(i)}) {
			t.Fatalf("item %d refused, want room for 25", i)
		}
	}
	if q.offer(item{rev: 25}) || q.len() != 25 {
		t.Fatalf("a 26th item taken (%d held), want it refused", q.len())
	}
	for i := range 25 {
		it := <-q.ch
		q.took()
		if it.rev != int64(i) {
			t.Fatalf("item %d: rev %d, want %d", i, it.rev, i)
		}
	}
	if q.overflow != nil || q.len() != 0 {
		t.Errorf("drained: %d held, overflow %v, want none", q.len(), q.overflow)
	}
}

// A dispatch waiting for room queues the item as soon as the watcher
// takes one; it gives up when the feed ends or the budget is spent.
func TestSubscriptionWaitsForRoom(t *testing.T) {
	sub := &subscription{q: newFeedQueue(1), ended: make(chan struct{})}
	sub.offer(item{rev: 1})
	go func() {
		<-sub.q.ch
		sub.q.took()
	}()
	if queued, ended := sub.wait(item{change: &change{rev: 2}}, nil); !queued || ended {
		t.Errorf("wait = %v, %v; want queued once the watcher took one", queued, ended)
	}
	spent := make(chan time.Time, 1)
	spent <- time.Now()
	if queued, ended := sub.wait(item{rev: 3}, spent); queued || ended {
		t.Errorf("wait with the budget spent = %v, %v; want neither", queued, ended)
	}
	close(sub.ended)
	if queued, ended := sub.wait(item{rev: 3}, nil); queued || !ended {
		t.Errorf("wait on an ended feed = %v, %v; want ended", queued, ended)
	}
	if sub.lastQueued != 2 {
		t.Errorf("lastQueued %d, want 2", sub.lastQueued)
	}
}
