// Package clustertest starts a cluster for the tests of any package: one
// helper, one set of test settings, stopped when the test ends.
package clustertest

import (
	"context"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// StartTimeout bounds how long Start waits for the cluster to answer.
const StartTimeout = 60 * time.Second

// Config returns the test settings on top of cluster.NewConfig: any free
// port, a data dir of tb's own (t.TempDir), no fsync, no simulated delays
// (speed 0). The caller may change it before Start.
func Config(tb testing.TB) *cluster.Config {
	tb.Helper()
	cfg := cluster.NewConfig()
	cfg.Port = 0
	cfg.UnsafeNoFsync = true
	cfg.DataDir = tb.TempDir()
	cfg.Speed = 0
	cfg.ReadyTimeout = StartTimeout
	return cfg
}

// Start starts a cluster with Config(tb), changed by each of configure in
// turn, and closes it when the test ends (opening its gate first, so that
// nothing held keeps the components from stopping). It fails the test if
// the cluster does not start.
func Start(tb testing.TB, configure ...func(*cluster.Config)) *cluster.Cluster {
	tb.Helper()
	cfg := Config(tb)
	for _, f := range configure {
		f(cfg)
	}
	return StartWith(tb, cfg)
}

// StartWith starts a cluster with cfg as Start does.
func StartWith(tb testing.TB, cfg *cluster.Config) *cluster.Cluster {
	tb.Helper()
	c, err := cluster.Start(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("cluster.Start: %v", err)
	}
	tb.Cleanup(func() {
		if c.Gate != nil {
			c.Gate.SetMode(flow.ModeOff)
		}
		if err := c.Close(); err != nil {
			tb.Errorf("cluster.Close: %v", err)
		}
	})
	return c
}

// APIOnly is a configure function: etcd and the API server alone, no
// scheduler, no kubelets, no controller manager, and so, as in upstream's
// integration tests (DefaultTestServerFlags), no ServiceAccount admission
// plugin: nothing makes the default service accounts it would look for.
func APIOnly(cfg *cluster.Config) {
	cfg.APIOnly()
	cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName}
}
