package storage

import (
	"testing"
	"time"
)

// TestWatchChannelSize: kube-apiserver's rule for a resource without an
// indexed field: the history's capacity over the seconds a change is
// kept, between 10 and 100.
func TestWatchChannelSize(t *testing.T) {
	fresh := DefaultEventFreshDuration
	for _, tc := range []struct {
		capacity int
		fresh    time.Duration
		want     int
	}{
		{DefaultWindowLowerBound, fresh, 10}, // ceil(100/75) = 2, raised to 10
		{1600, fresh, 22},                    // ceil(1600/75)
		{DefaultWindowUpperBound, fresh, 100},
		{100, 0, 10},
	} {
		if got := watchChannelSize(tc.capacity, tc.fresh); got != tc.want {
			t.Errorf("watchChannelSize(%d, %s) = %d, want %d", tc.capacity, tc.fresh, got, tc.want)
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
