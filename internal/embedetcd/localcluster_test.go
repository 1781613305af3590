package embedetcd_test

import (
	"context"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestLocalCluster: three members elect a leader; stopping it, the other
// two elect another and keep the written key; the stopped one restarts
// on its data and serves the key written while it was away; killing the
// new leader (no leadership transfer), the remaining two elect a third.
func TestLocalCluster(t *testing.T) {
	lc, _ := etcdtest.StartCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := lc.Client(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	first := waitLeader(t, lc, "")
	stopped := time.Now()
	if err := lc.Stop(first); err != nil {
		t.Fatal(err)
	}
	if err := lc.Stop(first); err == nil {
		t.Errorf("stopping %s twice: no error", first)
	}
	second := waitLeader(t, lc, first)
	t.Logf("stop of leader %s: %s leads %s later", first, second, time.Since(stopped).Round(time.Millisecond))
	if _, err := client.Put(ctx, "/k", "written while "+first+" was stopped"); err != nil {
		t.Fatalf("put with %s stopped: %v", first, err)
	}
	if err := lc.Restart(ctx, first); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := lc.Kill(second); err != nil {
		t.Fatal(err)
	}
	third := waitLeader(t, lc, second)
	t.Logf("kill of leader %s: %s leads %s later", second, third, time.Since(killed).Round(time.Millisecond))
	if _, err := client.Put(ctx, "/k2", "written with "+second+" killed"); err != nil {
		t.Fatalf("put with %s killed: %v", second, err)
	}
	if err := lc.Restart(ctx, second); err != nil {
		t.Fatal(err)
	}
	members, err := embedetcd.ClusterStatus(ctx, client, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 3 {
		t.Fatalf("%d members listed, want 3", len(members))
	}
	for _, m := range members {
		if m.Err != nil {
			t.Errorf("member %s: %v", m.Name, m.Err)
		}
	}
	if l, ok := embedetcd.LeaderOf(members); !ok || l.Name != lc.Leader() {
		t.Errorf("ClusterStatus leader %q (%v), LocalCluster says %q (first %s, second %s, third %s)", l.Name, ok, lc.Leader(), first, second, third)
	}
}

// waitLeader waits for a leader other than not and returns its name.
func waitLeader(t *testing.T, lc *embedetcd.LocalCluster, not string) string {
	t.Helper()
	deadline := time.Now().Add(waitfor.Bound)
	for time.Now().Before(deadline) {
		if l := lc.Leader(); l != "" && l != not {
			return l
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no leader other than %q within %s", not, waitfor.Bound)
	return ""
}
