package cluster_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
)

// TestEtcdCompactionInterval: with a short --etcd-compaction-interval the
// API server compacts etcd on its own, records it in its log in the data
// dir, and a read at the first revision then fails as compacted.
func TestEtcdCompactionInterval(t *testing.T) {
	c := clustertest.Start(t, clustertest.APIOnly, func(cfg *cluster.Config) {
		cfg.EtcdCompactionInterval = 20 * time.Millisecond
	})
	logPath := filepath.Join(c.DataDir, "logs", "apiserver.log")
	deadline := time.Now().Add(waitTimeout)
	for {
		data, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "etcd: compacted history up to revision") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no compaction recorded in %s within %v:\n%s", logPath, waitTimeout, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err := c.EtcdClient().Get(ctx, "/registry/namespaces/default", clientv3.WithRev(1))
	if !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("Get at revision 1 after a compaction: err = %v, want %v", err, rpctypes.ErrCompacted)
	}
}

func TestValidateEtcdCompactionInterval(t *testing.T) {
	cfg := cluster.NewConfig()
	if cfg.EtcdCompactionInterval != 5*time.Minute {
		t.Errorf("default compaction interval = %s, want kube-apiserver's 5m0s", cfg.EtcdCompactionInterval)
	}
	cfg.EtcdCompactionInterval = -time.Second
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "--etcd-compaction-interval must not be negative") {
		t.Errorf("Validate with a negative interval: %v", err)
	}
}
