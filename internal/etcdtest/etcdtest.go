package etcdtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
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

// StartCluster starts a new cluster of n members on loopback in a fresh
// t.TempDir(), with certificates of their own CA in DIR/pki (returned),
// each member's configuration with fsync off and then changed by every
// one of configure, and stops it when the test ends.
func StartCluster(tb testing.TB, n int, configure ...func(*embedetcd.MemberConfig)) (*embedetcd.LocalCluster, string) {
	tb.Helper()
	dir := tb.TempDir()
	pcfg := pki.NewConfig("")
	pcfg.Dir = filepath.Join(dir, "pki")
	files, err := pki.CreateEtcdPKI(pcfg)
	if err != nil {
		tb.Fatalf("etcd certificates: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lc, err := embedetcd.StartLocalCluster(ctx, dir, n, embedetcd.LocalClusterFilesOf(files),
		func(c *embedetcd.MemberConfig) {
			c.UnsafeNoFsync = true
			for _, f := range configure {
				f(c)
			}
		})
	if err != nil {
		tb.Fatalf("start etcd cluster: %v", err)
	}
	tb.Cleanup(lc.Close)
	return lc, files.Dir
}
