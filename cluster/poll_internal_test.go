package cluster

import (
	"context"
	"testing"
	"time"
)

// pollUntil looks at cond every 20 ms until it holds, and fails tb if
// ctx ends first.
func pollUntil(ctx context.Context, tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for !cond() {
		if ctx.Err() != nil {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
