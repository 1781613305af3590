package storage

import (
	"testing"
	"time"
)

// TestWatchChannelSize: kube-apiserver's rule: the history's capacity
// over the seconds a change is kept, at least 10 and at most 100 for a
// resource without an index; with one, at most 10 for a watcher that pins
// the indexed field and 1000 for one that does not.
func TestWatchChannelSize(t *testing.T) {
	fresh := DefaultEventFreshDuration
	for _, tc := range []struct {
		capacity                 int
		fresh                    time.Duration
		indexedResource, indexed bool
		want                     int
	}{
		{DefaultWindowLowerBound, fresh, false, false, 10}, // ceil(100/75) = 2, raised to 10
		{1600, fresh, false, false, 22},                    // ceil(1600/75)
		{DefaultWindowUpperBound, fresh, false, false, 100},
		{100, 0, false, false, 10},
		{1600, fresh, true, true, 10},
		{1600, fresh, true, false, 22},
		{DefaultWindowUpperBound, fresh, true, false, 1000},
		{DefaultWindowUpperBound, fresh, true, true, 10},
	} {
		if got := watchChannelSize(tc.capacity, tc.fresh, tc.indexedResource, tc.indexed); got != tc.want {
			t.Errorf("watchChannelSize(%d, %s, index %v, pinned %v) = %d, want %d", tc.capacity, tc.fresh, tc.indexedResource, tc.indexed, got, tc.want)
		}
	}
}

// TestDispatchBudget: the budget starts empty, fills by 50 ms a second up
// to 100 ms, is taken whole, and gets back what a wait did not use.
func TestDispatchBudget(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newDispatchBudget(func() time.Time { return now })
	if got := b.take(); got != 0 {
		t.Errorf("a new budget: %s, want 0", got)
	}
	now = now.Add(time.Second)
	if got := b.take(); got != 50*time.Millisecond {
		t.Errorf("after 1 s: %s, want 50ms", got)
	}
	if got := b.take(); got != 0 {
		t.Errorf("taken again at once: %s, want 0", got)
	}
	b.give(30 * time.Millisecond)
	b.give(-time.Second)
	if got := b.take(); got != 30*time.Millisecond {
		t.Errorf("after 30ms given back: %s, want 30ms", got)
	}
	now = now.Add(time.Minute)
	if got := b.take(); got != dispatchBudgetMax {
		t.Errorf("after a minute: %s, want %s", got, dispatchBudgetMax)
	}
}
