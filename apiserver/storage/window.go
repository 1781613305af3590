package storage

import (
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Bounds of the watch cache's history, as kube-apiserver's watch cache
// keeps it (k8s.io/apiserver/pkg/storage/cacher: defaultLowerBoundCapacity,
// defaultUpperBoundCapacity, DefaultEventFreshDuration).
const (
	// DefaultWindowLowerBound is the fewest changes the cache keeps.
	DefaultWindowLowerBound = 100
	// DefaultWindowUpperBound is the most changes the cache keeps.
	DefaultWindowUpperBound = 100 * 1024
	// DefaultEventFreshDuration is how long a change stays in the cache at
	// least, room permitting: the bookmark period (a minute) plus 15 s.
	DefaultEventFreshDuration = 75 * time.Second
)

// WindowConfig sizes a watch cache's history. The zero value is the
// defaults.
type WindowConfig struct {
	// LowerBound and UpperBound bound the number of changes kept; equal
	// bounds give a fixed size (tests).
	LowerBound, UpperBound int
	// EventFreshDuration is how long a change is kept at least: a full
	// history whose oldest change is younger doubles (up to UpperBound); a
	// full one whose newest quarter is all older halves (down to
	// LowerBound).
	EventFreshDuration time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (c WindowConfig) withDefaults() WindowConfig {
	if c.LowerBound <= 0 {
		c.LowerBound = DefaultWindowLowerBound
	}
	if c.UpperBound < c.LowerBound {
		c.UpperBound = max(DefaultWindowUpperBound, c.LowerBound)
	}
	if c.EventFreshDuration <= 0 {
		c.EventFreshDuration = DefaultEventFreshDuration
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// window is the history of a watch cache: the most recent changes, oldest
// first, since the revision the cache started at. It decides, as
// kube-apiserver's does, from which resourceVersion a watch can be served:
// from the start revision on while nothing was evicted, afterwards from
// just before the oldest change kept. Not safe for concurrent use (the
// cache's mutex guards it).
type window struct {
	cfg      WindowConfig
	capacity int
	changes  []*change
	times    []time.Time // when each change was recorded
	start    int64       // the revision the cache started at
	evicted  bool        // a change was dropped since start
}

func newWindow(cfg WindowConfig, start int64) *window {
	cfg = cfg.withDefaults()
	return &window{cfg: cfg, capacity: cfg.LowerBound, start: start}
}

// add records ch, resizing the window first and evicting the oldest
// change when it is full.
func (w *window) add(ch *change) {
	now := w.cfg.Now()
	w.resize(now)
	if len(w.changes) >= w.capacity {
		w.changes[0], w.changes = nil, w.changes[1:]
		w.times = w.times[1:]
		w.evicted = true
	}
	w.changes = append(w.changes, ch)
	w.times = append(w.times, now)
}

// resize doubles a full window whose oldest change is still fresh, and
// halves a full one whose newest quarter is all stale.
func (w *window) resize(now time.Time) {
	n := len(w.changes)
	if n < w.capacity {
		return
	}
	fresh := w.cfg.EventFreshDuration
	switch {
	case now.Sub(w.times[0]) < fresh:
		w.capacity = min(2*w.capacity, w.cfg.UpperBound)
	case now.Sub(w.times[n-w.capacity/4]) > fresh:
		if c := max(w.capacity/2, w.cfg.LowerBound); c < w.capacity {
			w.capacity = c
			drop := n - c
			clear(w.changes[:drop])
			w.changes, w.times = w.changes[drop:], w.times[drop:]
			w.evicted = true
		}
	}
}

// oldestServable is the smallest resourceVersion a watch can start after.
func (w *window) oldestServable() int64 {
	if !w.evicted || len(w.changes) == 0 {
		return w.start
	}
	return w.changes[0].rev - 1
}

// since returns the changes after rev, or the 410 Expired error
// kube-apiserver's watch cache gives when rev is older than what it holds.
func (w *window) since(rev int64) ([]*change, error) {
	if oldest := w.oldestServable(); rev < oldest {
		return nil, tooOldResourceVersion(rev, oldest)
	}
	i := sort.Search(len(w.changes), func(i int) bool { return w.changes[i].rev > rev })
	return w.changes[i:], nil
}

// tooOldResourceVersion is kube-apiserver's watch cache error for a watch
// from before its history: 410 Expired, "too old resource version: X (Y)",
// Y the oldest resourceVersion it could still serve.
func tooOldResourceVersion(rev, oldest int64) error {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rev, oldest))
}
