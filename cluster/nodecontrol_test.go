package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
)

// TestNodeControl stops and starts a kubelet through the control socket
// of a running cluster, as `kubesim node` does from another process, and
// checks the errors a person gets for a wrong request.
func TestNodeControl(t *testing.T) {
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.Nodes = kubelet.DefaultNodes(2)
		cfg.Scheduler, cfg.ControllerManager, cfg.MetricsServer = false, false, false
	})
	sock := cluster.ControlSocketPath(c.DataDir)
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatalf("control socket: %v", err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("control socket mode %v, want a socket with 0600", fi.Mode())
	}
	cc, err := cluster.DialControl(c.DataDir)
	if err != nil {
		t.Fatalf("DialControl: %v", err)
	}
	defer cc.Close()
	ctx := context.Background()

	wantKubelets(t, cc, "node-1=running node-2=running")
	if n, err := cc.StopKubelet(ctx, "node-1"); err != nil || n.Kubelet != cluster.KubeletStopped {
		t.Fatalf("StopKubelet(node-1) = %+v, %v; want it stopped", n, err)
	}
	if got := c.Kubelets(); strings.Join(got, ",") != "node-2" {
		t.Errorf("after the stop, the cluster runs kubelets %v, want node-2 only", got)
	}
	wantKubelets(t, cc, "node-1=stopped node-2=running")

	for _, tt := range []struct {
		name, verb, node string
		want             error
		wantMsg          string
	}{
		{"stop twice", "stop", "node-1", cluster.ErrKubeletStopped, "node-1: kubelet already stopped"},
		{"start a running one", "start", "node-2", cluster.ErrKubeletRunning, "node-2: kubelet already running"},
		{"unknown node", "stop", "node-9", cluster.ErrUnknownNode, `unknown node "node-9" (the nodes with a kubelet: node-1, node-2)`},
		{"unknown node start", "start", "node-9", cluster.ErrUnknownNode, `unknown node "node-9"`},
		{"a name with a slash", "stop", "a/b", cluster.ErrUnknownNode, `unknown node "a/b"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			act := cc.StopKubelet
			if tt.verb == "start" {
				act = cc.StartKubelet
			}
			_, err := act(ctx, tt.node)
			if !errors.Is(err, tt.want) {
				t.Fatalf("%s %s: error %v, want %v", tt.verb, tt.node, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("%s %s: error %q, want it to say %q", tt.verb, tt.node, err, tt.wantMsg)
			}
		})
	}

	if n, err := cc.StartKubelet(ctx, "node-1"); err != nil || n.Kubelet != cluster.KubeletRunning {
		t.Fatalf("StartKubelet(node-1) = %+v, %v; want it running", n, err)
	}
	wantKubelets(t, cc, "node-1=running node-2=running")
	waitNodeReady(t, cc, "node-1")
}

// TestNodeControlSocketGoesWithTheCluster checks that Close removes the
// socket and that a socket left behind (a kubesim killed) neither counts
// as a running kubesim nor keeps the next one from listening.
func TestNodeControlSocketGoesWithTheCluster(t *testing.T) {
	dir := t.TempDir()
	leaveStaleSocket(t, cluster.ControlSocketPath(dir))
	if _, err := cluster.DialControl(dir); !errors.Is(err, cluster.ErrNoRunningKubesim) {
		t.Fatalf("DialControl on a stale socket: %v, want ErrNoRunningKubesim", err)
	}
	cfg := clustertest.Config(t)
	cfg.DataDir = dir
	cfg.APIOnly()
	c, err := cluster.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	cc, err := cluster.DialControl(dir)
	if err != nil {
		c.Close()
		t.Fatalf("DialControl on a running cluster: %v", err)
	}
	nodes, err := cc.Nodes(context.Background())
	cc.Close()
	if err != nil || len(nodes) != 0 {
		t.Errorf("Nodes of an API-only cluster = %v, %v; want none", nodes, err)
	}
	if _, err := cc.StopKubelet(context.Background(), "node-1"); !errors.Is(err, cluster.ErrUnknownNode) ||
		!strings.Contains(err.Error(), "this kubesim runs no kubelets") {
		t.Errorf("StopKubelet on an API-only cluster: %v, want ErrUnknownNode saying it runs none", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(cluster.ControlSocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close, stat of the control socket: %v, want it gone", err)
	}
	_, err = cluster.DialControl(dir)
	if !errors.Is(err, cluster.ErrNoRunningKubesim) || !strings.Contains(err.Error(), "kubesim serve --data-dir "+dir) {
		t.Errorf("DialControl after Close: %v, want ErrNoRunningKubesim saying how to start one", err)
	}
}

// TestFindControl finds the kubesim running with a temporary data dir,
// and refuses to guess among several.
func TestFindControl(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := cluster.FindControl(); !errors.Is(err, cluster.ErrNoRunningKubesim) || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("FindControl with none running: %v, want ErrNoRunningKubesim pointing at --data-dir", err)
	}
	leaveStaleSocket(t, cluster.ControlSocketPath(mkdir(t, tmp, "kubesim-killed")))
	first := mkdir(t, tmp, "kubesim-1")
	listenUnix(t, cluster.ControlSocketPath(first))
	cc, err := cluster.FindControl()
	if err != nil {
		t.Fatalf("FindControl with one running (and one killed): %v", err)
	}
	cc.Close()
	if cc.DataDir != first {
		t.Errorf("FindControl found %s, want %s", cc.DataDir, first)
	}
	second := mkdir(t, tmp, "kubesim-2")
	listenUnix(t, cluster.ControlSocketPath(second))
	_, err = cluster.FindControl()
	if err == nil || !strings.Contains(err.Error(), "2 kubesims are running") || !strings.Contains(err.Error(), first+", "+second) {
		t.Errorf("FindControl with two running: %v, want an error naming both", err)
	}
}

// wantKubelets checks the kubelet state of every node ("name=state ...").
func wantKubelets(t *testing.T, cc *cluster.ControlClient, want string) {
	t.Helper()
	nodes, err := cc.Nodes(context.Background())
	if err != nil {
		t.Fatalf("Nodes: %v", err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name+"="+n.Kubelet)
	}
	if strings.Join(got, " ") != want {
		t.Errorf("nodes %q, want %q", strings.Join(got, " "), want)
	}
}

// waitNodeReady waits until the node list says name is Ready.
func waitNodeReady(t *testing.T, cc *cluster.ControlClient, name string) {
	t.Helper()
	eventually(t, fmt.Sprintf("node %s Ready after its kubelet started again", name), func() (bool, string) {
		nodes, err := cc.Nodes(context.Background())
		if err != nil {
			t.Fatalf("Nodes: %v", err)
		}
		for _, n := range nodes {
			if n.Name == name && n.Ready == string(metav1.ConditionTrue) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", nodes)
	})
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// listenUnix listens on path until the test ends.
func listenUnix(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// leaveStaleSocket leaves a socket file at path that nothing listens on,
// as a kubesim killed with -9 does.
func leaveStaleSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
}
