package cluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/kubelet"
)

// startFullCluster starts etcd, the API server, the scheduler and nodes
// kubelets at the given speed.
func startFullCluster(tb testing.TB, nodes int, speed float64) (*cluster.Cluster, kubernetes.Interface) {
	tb.Helper()
	c := clustertest.Start(tb, func(cfg *cluster.Config) {
		cfg.Nodes = kubelet.DefaultNodes(nodes)
		cfg.Speed = speed
	})
	admin, err := c.AdminClient()
	if err != nil {
		tb.Fatal(err)
	}
	return c, admin
}

// eventReasons lists the reasons of a pod's events, oldest first.
func eventReasons(tb testing.TB, admin kubernetes.Interface, pod *corev1.Pod) []string {
	tb.Helper()
	sel := fields.Set{"involvedObject.name": pod.Name, "involvedObject.uid": string(pod.UID)}.AsSelector().String()
	list, err := admin.CoreV1().Events(pod.Namespace).List(context.Background(), metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		tb.Fatal(err)
	}
	slices.SortStableFunc(list.Items, func(a, b corev1.Event) int {
		return a.FirstTimestamp.Compare(b.FirstTimestamp.Time)
	})
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason)
	}
	return out
}

// The pod flow as kubectl shows it: Pending, ContainerCreating, Running;
// the events Scheduled, Pulling, Pulled, Created, Started; three Ready
// nodes with their version; the pod's IP and node.
func TestKubectlPodRunsOnANode(t *testing.T) {
	t.Parallel()
	c, _ := startFullCluster(t, 3, 10)
	k := newKubectl(t, c)
	nodes := table(k.must(t, "get", "nodes"))
	if got := joined(nodes[0]); got != "NAME STATUS ROLES AGE VERSION" {
		t.Errorf("nodes header %q", got)
	}
	if len(nodes) != 4 {
		t.Fatalf("get nodes: %v, want 3 nodes", nodes)
	}
	for _, n := range nodes[1:] {
		if n[1] != "Ready" || n[4] != kubelet.KubeletVersion() {
			t.Errorf("node row %v, want Ready and version %s", n, kubelet.KubeletVersion())
		}
	}

	w := k.start(t, "get", "pods", "-w")
	// Once kubectl's watch has started (the audit log says so), no change
	// can be missed.
	eventually(t, "kubectl's watch to start", func() (bool, string) {
		return auditHasWatchStarted(t, filepath.Join(c.DataDir, "logs", "audit.log"), "/api/v1/namespaces/default/pods?"), ""
	})
	k.mustWith(t, `apiVersion: v1
kind: Pod
metadata:
  name: nginx
spec:
  containers:
  - name: nginx
    image: nginx:1.27
    resources:
      requests: {cpu: 100m, memory: 64Mi}
`, "apply", "-f", "-")
	lines := w.waitFor(t, "nginx Running", func(lines []string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "Running") })
	})
	var statuses []string
	for _, row := range table(strings.Join(lines, "\n"))[1:] {
		if row[0] == "nginx" && (len(statuses) == 0 || statuses[len(statuses)-1] != row[2]) {
			statuses = append(statuses, row[2])
		}
	}
	if strings.Join(statuses, " ") != "Pending ContainerCreating Running" {
		t.Errorf("get pods -w statuses %v, want Pending ContainerCreating Running\n%s", statuses, strings.Join(lines, "\n"))
	}

	wide := table(k.must(t, "get", "pods", "-o", "wide"))
	if row := wide[1]; !strings.HasPrefix(row[5], "10.244.") || !strings.HasPrefix(row[6], "node-") {
		t.Errorf("get pods -o wide row %v, want an IP from a node's CIDR and the node", row)
	}
	describe := k.must(t, "describe", "pod", "nginx")
	var reasons []string
	inEvents := false
	for _, l := range strings.Split(describe, "\n") {
		if strings.HasPrefix(l, "Events:") {
			inEvents = true
			continue
		}
		if f := strings.Fields(l); inEvents && len(f) > 1 && f[0] == "Normal" {
			reasons = append(reasons, f[1])
		}
	}
	// The scheduler writes Scheduled once its binding has returned, as
	// kube-scheduler does; under load the kubelet, which saw the binding
	// first, may have written Pulling before it. So Scheduled is checked
	// once, and the kubelet's events in their order.
	kubeletReasons := slices.DeleteFunc(slices.Clone(reasons), func(r string) bool { return r == "Scheduled" })
	if strings.Join(kubeletReasons, " ") != "Pulling Pulled Created Started" || len(reasons) != 5 {
		t.Errorf("describe events %v, want Scheduled once and Pulling Pulled Created Started in this order\n%s", reasons, describe)
	}
}

// A pod no node can take stays Pending with FailedScheduling "Insufficient
// cpu"; a Node created through the API (a kubelet is attached to it) large
// enough gets it scheduled, with nothing restarted.
func TestUnschedulableUntilANodeIsAdded(t *testing.T) {
	t.Parallel()
	c, admin := startFullCluster(t, 3, 0)
	k := newKubectl(t, c)
	k.mustWith(t, `apiVersion: v1
kind: Pod
metadata:
  name: big
spec:
  containers:
  - name: app
    image: busybox
    resources:
      requests: {cpu: "100"}
`, "apply", "-f", "-")
	var msg string
	eventually(t, "a FailedScheduling event", func() (bool, string) {
		list, err := admin.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "reason=FailedScheduling,involvedObject.name=big"})
		if err != nil || len(list.Items) == 0 {
			return false, fmt.Sprint(err)
		}
		msg = list.Items[0].Message
		return true, ""
	})
	if !strings.HasPrefix(msg, "0/3 nodes are available: 3 Insufficient cpu.") {
		t.Errorf("FailedScheduling message %q", msg)
	}
	p, err := admin.CoreV1().Pods("default").Get(context.Background(), "big", metav1.GetOptions{})
	if err != nil || p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
		t.Fatalf("big: %v node %q phase %s, want Pending and unbound", err, p.Spec.NodeName, p.Status.Phase)
	}

	k.mustWith(t, `apiVersion: v1
kind: Node
metadata:
  name: big-node
  labels: {size: big}
status:
  capacity: {cpu: "200", memory: 256Gi, pods: "110"}
`, "create", "-f", "-")
	eventually(t, "big Running on big-node", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(context.Background(), "big", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Spec.NodeName == "big-node" && p.Status.Phase == corev1.PodRunning, p.Spec.NodeName + " " + string(p.Status.Phase)
	})
	if got := c.Kubelets(); strings.Join(got, ",") != "big-node,node-1,node-2,node-3" {
		t.Errorf("kubelets %v", got)
	}
}

// Deleting a running pod: the watch sees MODIFIED with deletionTimestamp,
// then DELETED, and kubectl delete returns.
func TestDeleteRunningPod(t *testing.T) {
	t.Parallel()
	c, admin := startFullCluster(t, 1, 0)
	k := newKubectl(t, c)
	k.mustWith(t, podManifest("web", "nginx:1.27"), "apply", "-f", "-")
	var running *corev1.Pod
	eventually(t, "web Running", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		running = p
		return p.Status.Phase == corev1.PodRunning, string(p.Status.Phase)
	})
	w, err := admin.CoreV1().Pods("default").Watch(context.Background(), metav1.ListOptions{ResourceVersion: running.ResourceVersion, FieldSelector: "metadata.name=web"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if out := k.must(t, "delete", "pod", "web"); strings.TrimSpace(out) != `pod "web" deleted` {
		t.Errorf("kubectl delete: %q", out)
	}
	var types []string
	sawTimestamp := false
	deadline := time.After(waitTimeout)
	for !slices.Contains(types, string(watch.Deleted)) {
		select {
		case ev := <-w.ResultChan():
			types = append(types, string(ev.Type))
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Modified && p.DeletionTimestamp != nil {
				sawTimestamp = true
			}
		case <-deadline:
			t.Fatalf("no DELETED; saw %v", types)
		}
	}
	if !sawTimestamp || types[0] != string(watch.Modified) {
		t.Errorf("events %v, want MODIFIED with a deletionTimestamp first, then DELETED", types)
	}
	if _, err := admin.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after delete: %v", err)
	}
	if r := eventReasons(t, admin, running); !slices.Contains(r, "Killing") {
		t.Errorf("events %v, want a Killing", r)
	}
}

// A container that exits after a second under restartPolicy Always ends in
// CrashLoopBackOff with a growing restart count.
func TestCrashLoopBackOff(t *testing.T) {
	t.Parallel()
	c, admin := startFullCluster(t, 1, 20)
	k := newKubectl(t, c)
	k.mustWith(t, `apiVersion: v1
kind: Pod
metadata:
  name: crasher
  annotations: {kubesim.io/exit-after: 1s, kubesim.io/exit-code: "1"}
spec:
  containers:
  - name: app
    image: busybox
`, "apply", "-f", "-")
	var restarts []int32
	eventually(t, "CrashLoopBackOff after a few restarts", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(context.Background(), "crasher", metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) == 0 {
			return false, fmt.Sprint(err)
		}
		cs := p.Status.ContainerStatuses[0]
		if len(restarts) == 0 || restarts[len(restarts)-1] != cs.RestartCount {
			restarts = append(restarts, cs.RestartCount)
		}
		waiting := cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
		return waiting && cs.RestartCount >= 3, fmt.Sprintf("restarts %d state %+v", cs.RestartCount, cs.State)
	})
	if !slices.IsSorted(restarts) || len(restarts) < 2 {
		t.Errorf("restart counts seen %v, want growing", restarts)
	}
	if rows := table(k.must(t, "get", "pod", "crasher")); rows[1][2] != "CrashLoopBackOff" && rows[1][2] != "Error" && rows[1][2] != "Running" {
		t.Errorf("kubectl status %q", rows[1][2])
	}
}

// 100 pods on 10 nodes: all Running, each with its events.
func TestHundredPodsOnTenNodes(t *testing.T) {
	t.Parallel()
	_, admin := startFullCluster(t, 10, 0)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%03d", i)},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("100m")}}}}},
			}
			if _, err := admin.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// However busy the machine, pods keep reaching Running: the wait
	// fails only when their count stops growing for waitfor.Stall.
	var pods []corev1.Pod
	waitfor.Progress(t, "100 pods Running", func(ctx context.Context) (bool, string, error) {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"})
		if err != nil {
			return false, "", err
		}
		pods = list.Items
		return len(pods) == 100, fmt.Sprintf("%d running", len(pods)), nil
	}, waitfor.PollEvery(pollInterval))
	perNode := map[string]int{}
	for _, p := range pods {
		perNode[p.Spec.NodeName]++
	}
	if len(perNode) != 10 {
		t.Errorf("pods per node %v, want all 10 nodes used", perNode)
	}
	// Every pod's events: the scheduler's Scheduled once, and the
	// kubelet's in order. An image is pulled once per node, so later pods
	// on a node see Pulled "already present" without Pulling. Scheduled
	// may come after the kubelet's first events: the scheduler writes it
	// once its binding request has returned (as kube-scheduler does), and
	// by then the kubelet may have the pod already.
	for i := range pods {
		p := &pods[i]
		eventually(t, "events of "+p.Name, func() (bool, string) {
			r := eventReasons(t, admin, p)
			kubelet := slices.DeleteFunc(slices.Clone(r), func(reason string) bool { return reason == "Scheduled" })
			want := []string{"Pulled", "Created", "Started"}
			if slices.Contains(r, "Pulling") {
				want = []string{"Pulling", "Pulled", "Created", "Started"}
			}
			scheduled := len(r) - len(kubelet)
			return scheduled == 1 && slices.Equal(kubelet, want), strings.Join(r, " ")
		})
	}
}

// After a restart on the same data dir, running pods stay running: no new
// Created or Started events, the same container.
func TestRestartKeepsPodsRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := func() (*cluster.Cluster, kubernetes.Interface) {
		cfg := cluster.NewConfig()
		cfg.Port, cfg.UnsafeNoFsync, cfg.DataDir, cfg.Speed = 0, true, dir, 0
		cfg.Nodes = kubelet.DefaultNodes(2)
		c, err := cluster.Start(context.Background(), cfg)
		if err != nil {
			t.Fatalf("cluster.Start: %v", err)
		}
		admin, err := c.AdminClient()
		if err != nil {
			t.Fatal(err)
		}
		return c, admin
	}
	ctx := context.Background()
	c, admin := start()
	if _, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "durable"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var before *corev1.Pod
	eventually(t, "durable Running", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "durable", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		before = p
		return p.Status.Phase == corev1.PodRunning, string(p.Status.Phase)
	})
	// Events are written after the fact (by each component's event
	// recorder): wait until the Started event is stored too.
	var beforeEvents []string
	eventually(t, "durable's Started event", func() (bool, string) {
		beforeEvents = eventReasons(t, admin, before)
		return slices.Contains(beforeEvents, "Started"), strings.Join(beforeEvents, " ")
	})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c, admin = start()
	defer c.Close()
	// The new kubelet of durable's node has worked through its pods once a
	// pod created after the restart on that node runs.
	if _, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "newcomer"},
		Spec:       corev1.PodSpec{NodeName: before.Spec.NodeName, Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "newcomer Running", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "newcomer", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Status.Phase == corev1.PodRunning, string(p.Status.Phase)
	})
	after, err := admin.CoreV1().Pods("default").Get(ctx, "durable", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, a := before.Status.ContainerStatuses[0], after.Status.ContainerStatuses[0]
	if after.Status.Phase != corev1.PodRunning || a.ContainerID != b.ContainerID || !a.State.Running.StartedAt.Equal(&b.State.Running.StartedAt) || a.RestartCount != 0 {
		t.Errorf("after restart: phase %s container %s started %v restarts %d; before: %s %v", after.Status.Phase, a.ContainerID, a.State.Running, a.RestartCount, b.ContainerID, b.State.Running.StartedAt)
	}
	if got := eventReasons(t, admin, after); strings.Join(got, " ") != strings.Join(beforeEvents, " ") {
		t.Errorf("events after restart %v, before %v: the restart must not create or start the container again", got, beforeEvents)
	}
}
