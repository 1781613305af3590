package controllers_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
)

// nodeFailureMilestones are the moments of a node failure, measured from
// the kubelet's stop, in the order they come.
var nodeFailureMilestones = []string{
	"node Ready=Unknown", "node tainted unreachable:NoExecute", "pods Ready=False",
	"pods deleted (Terminating)", "replacements Ready elsewhere",
}

// TestNodeFailureTimings prints when a node whose kubelet stops goes
// Unknown, is tainted, and its pods are evicted and replaced, at each
// speed listed in KUBESIM_NODE_FAILURE_TIMINGS (for example "1,10");
// skipped without it. It measures, it asserts nothing about time.
func TestNodeFailureTimings(t *testing.T) {
	env := os.Getenv("KUBESIM_NODE_FAILURE_TIMINGS")
	if env == "" {
		t.Skip("set KUBESIM_NODE_FAILURE_TIMINGS=1,10 to measure a node failure at those speeds")
	}
	for _, s := range strings.Split(env, ",") {
		speed, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			t.Fatalf("KUBESIM_NODE_FAILURE_TIMINGS: %v", err)
		}
		t.Run("speed-"+s, func(t *testing.T) {
			t.Parallel()
			at := measureNodeFailure(t, speed)
			for _, m := range nodeFailureMilestones {
				t.Logf("speed %-4g %-36s %8.2fs", speed, m, at[m].Seconds())
			}
		})
	}
}

// measureNodeFailure runs a Deployment of three pods on three nodes at
// speed, stops the kubelet of one pod's node and returns when each
// milestone was first seen (polled every 25 ms).
func measureNodeFailure(t *testing.T, speed float64) map[string]time.Duration {
	c := clustertest.Start(t, func(cfg *cluster.Config) { cfg.MetricsServer, cfg.Speed = false, speed })
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	node := podsOf(t, admin, "web")[0].Spec.NodeName
	stopped := time.Now()
	if err := c.StopKubelet(node); err != nil {
		t.Fatal(err)
	}
	at := map[string]time.Duration{}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	err = wait.PollUntilContextCancel(ctx, 25*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		seen, err := nodeFailureSeen(ctx, admin, node)
		if err != nil {
			return false, err
		}
		for _, m := range nodeFailureMilestones {
			if _, ok := at[m]; !ok && seen[m] {
				at[m] = time.Since(stopped)
			}
		}
		return len(at) == len(nodeFailureMilestones), nil
	})
	if err != nil {
		t.Fatalf("after %s: seen %v: %v", time.Since(stopped), at, err)
	}
	return at
}

// nodeFailureSeen says which milestones hold now.
func nodeFailureSeen(ctx context.Context, admin kubernetes.Interface, node string) (map[string]bool, error) {
	n, err := getNode(ctx, admin, node)
	if err != nil {
		return nil, err
	}
	pods, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return nil, err
	}
	ready := conditionOfNode(n, corev1.NodeReady)
	seen := map[string]bool{
		"node Ready=Unknown":                 ready != nil && ready.Status == corev1.ConditionUnknown,
		"node tainted unreachable:NoExecute": nodeHasTaint(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute),
		"pods Ready=False":                   true,
		"pods deleted (Terminating)":         true,
	}
	readyElsewhere := 0
	for _, p := range pods.Items {
		cond := podCondition(&p, corev1.PodReady)
		isReady := cond != nil && cond.Status == corev1.ConditionTrue
		if p.Spec.NodeName == node {
			seen["pods Ready=False"] = seen["pods Ready=False"] && !isReady
			seen["pods deleted (Terminating)"] = seen["pods deleted (Terminating)"] && p.DeletionTimestamp != nil
		} else if isReady && p.DeletionTimestamp == nil {
			readyElsewhere++
		}
	}
	seen["replacements Ready elsewhere"] = readyElsewhere == 3
	return seen, nil
}
