package scenarios

import (
	"context"
	"time"
)

// budgetTick is how often a step's time budget is looked at while the
// gate may hold something.
const budgetTick = 20 * time.Millisecond

// withBudget returns a context cancelled when d has passed, not counting
// the time during which the gate holds anything (a held cluster cannot
// make progress, and a learner may look at it as long as they like).
// Without a gate it is context.WithTimeout.
func (p *player) withBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if p.gate == nil {
		return context.WithTimeout(ctx, d)
	}
	bctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		left, last := d, time.Now()
		t := time.NewTicker(budgetTick)
		defer t.Stop()
		for {
			select {
			case <-bctx.Done():
				return
			case now := <-t.C:
				if len(p.gate.Held()) == 0 {
					left -= now.Sub(last)
				}
				last = now
				if left <= 0 {
					cancel(context.DeadlineExceeded)
					return
				}
			}
		}
	}()
	return bctx, func() {
		cancel(context.Canceled)
		<-done
	}
}
