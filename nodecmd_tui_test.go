package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

// TestSessionNodeControl: the TUI's session stops and starts a kubelet
// of its cluster, and `kubesim node` in another terminal sees the same
// cluster through the socket in the driver's data dir.
func TestSessionNodeControl(t *testing.T) {
	dir := t.TempDir()
	d, err := newScenarioDriver(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	// The cluster runs until the context of Start ends (the TUI's own).
	s, err := d.Start(context.Background(), "pod-create", tui.StartOptions{Mode: flow.ModeAuto, Speed: 0, Lang: "en"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	select {
	case <-s.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("pod-create did not finish within %v", waitTimeout)
	}
	nc, ok := s.(tui.NodeControl)
	if !ok {
		t.Fatalf("the driver's session %T does not implement tui.NodeControl", s)
	}
	ctx := context.Background()
	nodes, err := nc.Kubelets(ctx)
	if err != nil || len(nodes) == 0 || !nodes[0].Running {
		t.Fatalf("Kubelets() = %+v, %v; want nodes with running kubelets", nodes, err)
	}
	name := nodes[0].Name
	if err := nc.StopKubelet(ctx, name); err != nil {
		t.Fatalf("StopKubelet(%s): %v", name, err)
	}
	if err := nc.StopKubelet(ctx, name); !errors.Is(err, cluster.ErrKubeletStopped) {
		t.Errorf("a second StopKubelet(%s): %v, want ErrKubeletStopped", name, err)
	}
	if nodes, _ := nc.Kubelets(ctx); nodes[0].Running {
		t.Errorf("after the stop, Kubelets() = %+v, want %s stopped", nodes, name)
	}
	out, stderr, code := runKubesim("node", "list", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, name+"   stopped") {
		t.Errorf("kubesim node list on the TUI's cluster: exit %d, stdout %q, stderr %q; want %s stopped", code, out, stderr, name)
	}
	if err := nc.StartKubelet(ctx, name); err != nil {
		t.Fatalf("StartKubelet(%s): %v", name, err)
	}
	if nodes, _ := nc.Kubelets(ctx); !nodes[0].Running {
		t.Errorf("after the start, Kubelets() = %+v, want %s running", nodes, name)
	}
}
