package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/kubelet"
)

// agentManifest is a DaemonSet with no tolerations of its own.
const agentManifest = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: busybox}]
`

// TestKubectlDaemonSet: a DaemonSet made with the real kubectl has one
// Running pod on each node; a node added gets one; a node tainted
// NoExecute (which the pods do not tolerate) loses its pod and leaves
// the desired count. Skipped when kubectl is not on PATH.
func TestKubectlDaemonSet(t *testing.T) {
	c, admin := startNodes(t, 2)
	k := newKubectl(t, c)
	if r := k.run(t, agentManifest, "apply", "-f", "-"); r.err != nil || r.stdout != "daemonset.apps/agent created\n" {
		t.Fatalf("kubectl apply: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	wantAgents(t, admin, "node-1", "node-2")
	k.must(t, "rollout", "status", "daemonset/agent", "--timeout="+waitTimeout.String())

	if err := c.StartKubelet(kubelet.DefaultNodeSpec("node-3")); err != nil {
		t.Fatal(err)
	}
	wantAgents(t, admin, "node-1", "node-2", "node-3")

	k.mustPrint(t, "node/node-3 tainted\n", "taint", "node", "node-3", "dedicated=db:NoExecute")
	wantAgents(t, admin, "node-1", "node-2")
	waitFor(t, "the DaemonSet's status to say 2 desired and 2 ready", func(ctx context.Context) (bool, error) {
		ds, err := admin.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
		return err == nil && ds.Status.DesiredNumberScheduled == 2 && ds.Status.NumberReady == 2, err
	})
	out := k.must(t, "get", "daemonset", "agent")
	if rows := table(out); len(rows) != 1 || len(rows[0]) != 2 || !slices.Equal(rows[0][1][:6], []string{"agent", "2", "2", "2", "2", "2"}) {
		t.Errorf("kubectl get daemonset printed %q, want agent with 2 desired, current, ready, up-to-date and available", out)
	}
}

// wantAgents waits until the agent DaemonSet has exactly one Ready pod
// on each of nodes and none elsewhere (pods being deleted not counted).
func wantAgents(t *testing.T, admin kubernetes.Interface, nodes ...string) {
	t.Helper()
	waitProgress(t, "one ready agent pod on each of "+strings.Join(nodes, ", "), func(ctx context.Context) (bool, string, error) {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=agent"})
		if err != nil {
			return false, "", err
		}
		var on []string
		for _, p := range list.Items {
			if p.DeletionTimestamp == nil && podReady(&p) {
				on = append(on, p.Spec.NodeName)
			}
		}
		slices.Sort(on)
		return slices.Equal(on, nodes), fmt.Sprintf("ready on %v", on), nil
	})
}
