package storage

import (
	"sync"
	"time"
)

// The dispatch budget, as kube-apiserver's cacher has it
// (k8s.io/apiserver/pkg/storage/cacher, time_budget.go): how long the
// watch cache may wait, in all, for watchers whose buffers are full before
// it gives up on them.
const (
	// dispatchBudgetRefill is the time added to the budget per second.
	dispatchBudgetRefill = 50 * time.Millisecond
	// dispatchBudgetMax is the most the budget holds.
	dispatchBudgetMax = 100 * time.Millisecond
)

// dispatchBudget is time the cache may spend waiting for blocked
// watchers: it fills by dispatchBudgetRefill a second up to
// dispatchBudgetMax, starting empty. take hands out all of it; give
// returns what a wait did not use. Safe for concurrent use (the cache
// uses it from one goroutine).
type dispatchBudget struct {
	mu     sync.Mutex
	now    func() time.Time
	budget time.Duration
	last   time.Time
}

func newDispatchBudget(now func() time.Time) *dispatchBudget {
	if now == nil {
		now = time.Now
	}
	return &dispatchBudget{now: now, last: now()}
}

// take returns the whole budget, refilled for the time since the last
// take, and leaves it empty.
func (b *dispatchBudget) take() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	refill := time.Duration(max(now.Sub(b.last).Seconds(), 0) * float64(dispatchBudgetRefill))
	b.budget = min(b.budget+refill, dispatchBudgetMax)
	b.last = now
	d := b.budget
	b.budget = 0
	return d
}

// give returns unused time to the budget (a negative one: nothing).
func (b *dispatchBudget) give(unused time.Duration) {
	if unused <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.budget = min(b.budget+unused, dispatchBudgetMax)
}
