package storage

import (
	"testing"
	"time"
)

// TestWindowResizes: a full window whose oldest change is fresh doubles
// (up to the upper bound); once the newest quarter is stale it halves
// (down to the lower bound), as kube-apiserver's watch cache does.
func TestWindowResizes(t *testing.T) {
	now := time.Unix(1000, 0)
	w := newWindow(WindowConfig{LowerBound: 4, UpperBound: 16, EventFreshDuration: time.Minute, Now: func() time.Time { return now }}, 10)
	rev := int64(10)
	add := func(n int, step time.Duration) {
		for range n {
			rev++
			now = now.Add(step)
			w.add(&change{rev: rev})
		}
	}
	add(20, time.Second) // 20 changes in 20 s: all fresh
	if w.capacity != 16 || len(w.changes) != 16 || !w.evicted {
		t.Fatalf("after 20 fresh changes: capacity %d, %d kept, evicted %v; want 16, 16, true", w.capacity, len(w.changes), w.evicted)
	}
	if got, want := w.oldestServable(), rev-16; got != want {
		t.Errorf("oldest servable %d, want %d (just before the oldest kept)", got, want)
	}
	add(1, 2*time.Minute) // the newest quarter is older than a minute
	if w.capacity != 8 || len(w.changes) != 8 {
		t.Errorf("after a stale change: capacity %d, %d kept; want 8, 8", w.capacity, len(w.changes))
	}
	if _, err := w.since(rev - 9); err == nil {
		t.Errorf("since(%d) with %d..%d kept: want 410", rev-9, rev-7, rev)
	}
	got, err := w.since(rev - 8)
	if err != nil || len(got) != 8 {
		t.Errorf("since(%d) = %d changes, %v; want 8", rev-8, len(got), err)
	}
}

// TestWindowFromStart: before anything is evicted, a watch can start
// from the revision the cache started at, not before.
func TestWindowFromStart(t *testing.T) {
	w := newWindow(WindowConfig{}, 50)
	w.add(&change{rev: 53})
	if _, err := w.since(49); err == nil || err.Error() != "too old resource version: 49 (50)" {
		t.Errorf("since(49) error %v, want too old resource version: 49 (50)", err)
	}
	if got, err := w.since(50); err != nil || len(got) != 1 {
		t.Errorf("since(50) = %d changes, %v; want the one change", len(got), err)
	}
}
