package cluster_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strconv"
	"testing"

	"github.com/kubesim/kubesim/cluster"
)

// TestDataDirIsLocked: while a cluster runs on a data dir, starting
// another on it fails at once with a *DataDirInUseError naming the
// holder; once the first is closed, the dir can be used again.
func TestDataDirIsLocked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mustStartCluster(t, dir)

	cfg := cluster.NewConfig().APIOnly()
	cfg.Port, cfg.UnsafeNoFsync, cfg.DataDir = 0, true, dir
	_, err := cluster.Start(context.Background(), cfg)
	var inUse *cluster.DataDirInUseError
	if !errors.As(err, &inUse) {
		t.Fatalf("second Start = %v, want a *DataDirInUseError", err)
	}
	if inUse.Dir != dir || inUse.PID != os.Getpid() {
		t.Errorf("in use by %q process %d, want %q process %d", inUse.Dir, inUse.PID, dir, os.Getpid())
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	mustStartCluster(t, dir)
}

// TestTemporaryDataDirRemovedOnFailedStart: a start that fails after the
// keys were written (here: the port is taken) removes its temporary
// data dir with them.
func TestTemporaryDataDirRemovedOnFailedStart(t *testing.T) {
	busy := mustStartCluster(t, "")
	u, err := url.Parse(busy.URL)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // not parallel: the environment is the process's
	cfg := cluster.NewConfig().APIOnly()
	cfg.UnsafeNoFsync = true
	if cfg.Port, err = strconv.Atoi(u.Port()); err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Start(context.Background(), cfg); err == nil {
		t.Fatal("Start on a port in use succeeded")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}
