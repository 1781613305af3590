// Package etcdtest starts a throw-away embedded etcd for tests.
package etcdtest

import (
	"testing"

	"github.com/kubesim/kubesim/internal/embedetcd"
)

// Start starts a member in a fresh t.TempDir() and stops it when the test
// ends. Fsync is off: the data dies with the test anyway.
func Start(tb testing.TB) *embedetcd.Server {
	tb.Helper()
	cfg := embedetcd.NewConfig(tb.TempDir())
	cfg.UnsafeNoFsync = true
	s, err := embedetcd.Start(cfg)
	if err != nil {
		tb.Fatalf("start etcd: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}
