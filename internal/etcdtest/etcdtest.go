package etcdtest

import (
	"context"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/embedetcd"
)

// ProgressNotifyInterval is the watch progress period of test members:
// short, so that tests see BOOKMARK events without waiting long.
const ProgressNotifyInterval = 200 * time.Millisecond

// Start starts a member in a fresh t.TempDir() and stops it when the test
// ends. Fsync is off: the data dies with the test anyway.
func Start(tb testing.TB) *embedetcd.Server {
	tb.Helper()
	cfg := embedetcd.NewConfig(tb.TempDir())
	cfg.UnsafeNoFsync = true
	cfg.ProgressNotifyInterval = ProgressNotifyInterval
	s, err := embedetcd.Start(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("start etcd: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}
