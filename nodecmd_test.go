package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
)

// TestNodeCommand runs `kubesim node` against a cluster running in this
// process, found through its control socket as from another terminal:
// first without --data-dir (the cluster has a temporary data dir), then
// with it; each row runs after the one before, on the same cluster.
func TestNodeCommand(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the cluster makes its data dir, and where node looks
	cfg := clustertest.Config(t)
	cfg.DataDir = ""
	cfg.Nodes = kubelet.DefaultNodes(2)
	cfg.Scheduler, cfg.ControllerManager, cfg.MetricsServer = false, false, false
	c := clustertest.StartWith(t, cfg)
	dir := c.DataDir
	if !strings.HasPrefix(dir, tmp+"/kubesim-") {
		t.Fatalf("data dir %s, want a temporary one in %s", dir, tmp)
	}
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"node", "list"}, 0, "NAME     KUBELET   READY\nnode-1   running   ", ""},
		{[]string{"node", "stop", "node-1"}, 0, "kubelet of node-1 stopped (kubesim in " + dir + ")\nThe Node stays; nothing renews its Lease or reports its status until: kubesim node start node-1\n", ""},
		{[]string{"node", "list", "--data-dir", dir}, 0, "node-1   stopped   ", ""},
		{[]string{"node", "stop", "node-1", "--data-dir", dir}, 1, "", "kubesim: node-1: kubelet already stopped\n"},
		{[]string{"node", "start", "node-3"}, 1, "", `kubesim: unknown node "node-3" (the nodes with a kubelet: node-1, node-2)`},
		{[]string{"node", "start", "node-1"}, 0, "kubelet of node-1 started (kubesim in " + dir + ")\nIt registers the Node again, renews its Lease and reports its status.\n", ""},
		{[]string{"node", "start", "node-1"}, 1, "", "kubesim: node-1: kubelet already running\n"},
		{[]string{"node", "list"}, 0, "node-1   running   ", ""},
		{[]string{"node", "stop"}, 2, "", "accepts 1 arg(s), received 0"},
		{[]string{"node", "stop", "node-1", "node-2"}, 2, "", "accepts 1 arg(s), received 2"},
		{[]string{"node", "reboot", "node-1"}, 2, "", `unknown command "reboot" for "kubesim node"`},
		{[]string{"node", "list", "--data-dir", tmp}, 1, "", "kubesim: no running kubesim in " + tmp + ": nothing answers on " + tmp + "/control.sock (start one with: kubesim serve --data-dir " + tmp + ")"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runKubesim(tt.args...)
		if code != tt.wantCode {
			t.Errorf("kubesim %s: exit code %d, want %d (stderr %q)", strings.Join(tt.args, " "), code, tt.wantCode, stderr)
		}
		if !strings.Contains(stdout, tt.wantOut) {
			t.Errorf("kubesim %s: stdout %q, want it to contain %q", strings.Join(tt.args, " "), stdout, tt.wantOut)
		}
		if !strings.Contains(stderr, tt.wantErr) {
			t.Errorf("kubesim %s: stderr %q, want it to contain %q", strings.Join(tt.args, " "), stderr, tt.wantErr)
		}
	}
	if got := strings.Join(c.Kubelets(), ","); got != "node-1,node-2" {
		t.Errorf("after the commands, kubelets %s run, want node-1,node-2", got)
	}
}

// TestNodeCommandNoKubesim: with nothing running, node says where it
// looked and what to do.
func TestNodeCommandNoKubesim(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, stderr, code := runKubesim("node", "stop", "node-1")
	want := "kubesim: no running kubesim found in " + tmp + "/kubesim-* (kubesim serve and kubesim play listen there without --data-dir; for one started with --data-dir DIR, give the same --data-dir DIR)\n"
	if code != 1 || stderr != want {
		t.Errorf("kubesim node stop node-1 with none running: exit %d, stderr %q; want 1, %q", code, stderr, want)
	}
}

// TestNodeHint is the line serve prints.
func TestNodeHint(t *testing.T) {
	if got, want := nodeHint(""), "stop a node:    kubesim node stop node-1   (kubesim node list)"; got != want {
		t.Errorf("nodeHint(\"\") = %q, want %q", got, want)
	}
	if got, want := nodeHint("/d"), "stop a node:    kubesim node stop node-1 --data-dir /d   (kubesim node list --data-dir /d)"; got != want {
		t.Errorf("nodeHint(/d) = %q, want %q", got, want)
	}
}

// runKubesim runs the command line args as main does.
func runKubesim(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	cmd := newRootCommand(strings.NewReader(""), &out, &errOut)
	cmd.SetArgs(args)
	code = exitCode(cmd.ExecuteContext(context.Background()), &errOut)
	return out.String(), errOut.String(), code
}
