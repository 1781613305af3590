package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// testTimeout bounds the whole of an internal test that shares one
// context among its steps (each step's wait has its own, shorter bound).
const testTimeout = waitfor.Cap

// pollUntil looks at cond every 20 ms until it holds, and fails tb if
// ctx ends first or cond has not held for waitfor.Bound.
func pollUntil(ctx context.Context, tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(waitfor.Bound)
	for !cond() {
		if ctx.Err() != nil {
			tb.Fatalf("timed out waiting for %s", what)
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not reached within %v", what, waitfor.Bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
