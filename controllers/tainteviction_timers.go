package controllers

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// evictionTimer is one pod's scheduled deletion (upstream's TimedWorker).
type evictionTimer struct {
	createdAt, fireAt time.Time
	timer             *time.Timer
	cancelled         atomic.Bool
}

// evictionTimers runs a function for a key at a time, at most one
// pending per key, as upstream's TimedWorkerQueue: a key whose work is
// due already runs at once and is held as in progress (nil) until it
// ends. It is safe for concurrent use; wait ends it.
type evictionTimers struct {
	mu     sync.Mutex
	timers map[string]*evictionTimer
	closed bool
	wg     sync.WaitGroup
	work   func(ctx context.Context, key string)
}

func newEvictionTimers(work func(ctx context.Context, key string)) *evictionTimers {
	return &evictionTimers{timers: map[string]*evictionTimer{}, work: work}
}

// add schedules key's work at fireAt unless some is pending or running
// for key already.
func (q *evictionTimers) add(ctx context.Context, key string, createdAt, fireAt time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.timers[key]; ok || q.closed {
		return
	}
	delay := fireAt.Sub(createdAt)
	if delay <= 0 {
		q.timers[key] = nil
		q.start(ctx, key, nil)
		return
	}
	t := &evictionTimer{createdAt: createdAt, fireAt: fireAt}
	t.timer = time.AfterFunc(delay, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.start(ctx, key, t)
	})
	q.timers[key] = t
}

// start runs key's work on a goroutine of q's; the caller holds q.mu.
func (q *evictionTimers) start(ctx context.Context, key string, t *evictionTimer) {
	if q.closed || (t != nil && t.cancelled.Load()) {
		return
	}
	q.wg.Go(func() {
		q.work(ctx, key)
		q.mu.Lock()
		defer q.mu.Unlock()
		if cur, ok := q.timers[key]; ok && cur == t {
			delete(q.timers, key)
		}
	})
}

// get returns key's pending timer: nil if none, or if its work runs.
func (q *evictionTimers) get(key string) *evictionTimer {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.timers[key]
}

// cancel forgets key's work; it reports whether a pending one was
// cancelled.
func (q *evictionTimers) cancel(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.timers[key]
	if !ok {
		return false
	}
	delete(q.timers, key)
	if t == nil {
		return false
	}
	t.cancelled.Store(true)
	t.timer.Stop()
	return true
}

// stop cancels every pending work and waits for the running ones.
func (q *evictionTimers) stop() {
	q.mu.Lock()
	q.closed = true
	for _, t := range q.timers {
		if t != nil {
			t.cancelled.Store(true)
			t.timer.Stop()
		}
	}
	q.timers = map[string]*evictionTimer{}
	q.mu.Unlock()
	q.wg.Wait()
}
