package kubelet_test

import (
	"context"
	"encoding/json"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/kubelet"
)

// The integration tests run kubelets against a real kubesim control plane
// (etcd and the API server over HTTPS). They wait for conditions, never
// for a fixed time, and a slow machine does not fail them: waitTimeout is
// the generous deadline after which a condition counts as never reached.
const (
	waitTimeout  = waitfor.Bound
	pollInterval = 20 * time.Millisecond
)

func mustStartCluster(tb testing.TB) *cluster.Cluster {
	tb.Helper()
	return clustertest.Start(tb, clustertest.APIOnly)
}

func adminClient(tb testing.TB, c *cluster.Cluster) kubernetes.Interface {
	tb.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	// The tests poll through it, several at once: client-go's default
	// limits (5 and 10) would make them wait on the client.
	rc.QPS, rc.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// nodeClient is a client authenticated as system:node:<name> (client
// certificate, group system:nodes).
func nodeClient(tb testing.TB, c *cluster.Cluster, name string) kubernetes.Interface {
	tb.Helper()
	kc, err := c.Authority.Kubeconfig(c.URL, pki.Node(name), pki.ClientCertificate)
	if err != nil {
		tb.Fatal(err)
	}
	rc, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		tb.Fatal(err)
	}
	// The kubelet's own limits (kubeAPIQPS, kubeAPIBurst); client-go's
	// defaults (5 and 10) would slow the simulation down.
	rc.QPS, rc.Burst = 50, 100
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// runningKubelet is a kubelet running in the background.
type runningKubelet struct {
	cfg    *kubelet.Config
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// startKubelet runs a kubelet for node name against c (speed 0, lease
// renewed and status checked every 500ms, an unchanged status reported
// every 5 min, the default), changed by change; it is stopped when the
// test ends (stopping it earlier is fine).
func startKubelet(tb testing.TB, c *cluster.Cluster, name string, change func(*kubelet.Config)) *runningKubelet {
	tb.Helper()
	cfg := kubelet.NewConfig(kubelet.DefaultNodeSpec(name), nodeClient(tb, c, name))
	cfg.Speed = 0
	cfg.LeaseDuration = 2 * time.Second
	cfg.StatusUpdateFrequency = 500 * time.Millisecond
	cfg.Recorder = flow.NewRecorder()
	if change != nil {
		change(cfg)
	}
	k, err := kubelet.New(cfg)
	if err != nil {
		tb.Fatalf("kubelet.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningKubelet{cfg: cfg, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- k.Run(ctx) }()
	tb.Cleanup(func() { r.stop(tb) })
	return r
}

// stop stops the kubelet and waits for Run to return.
func (r *runningKubelet) stop(tb testing.TB) {
	tb.Helper()
	r.once.Do(func() {
		r.cancel()
		select {
		case err := <-r.done:
			if err != nil {
				tb.Errorf("kubelet.Run: %v", err)
			}
		case <-time.After(waitTimeout):
			tb.Errorf("kubelet.Run did not return after its context was canceled")
		}
	})
}

// waitFor polls cond until it holds, failing the test once it has not
// for waitTimeout; an error from cond is shown in the failure.
func waitFor(tb testing.TB, what string, cond func() (bool, error)) {
	tb.Helper()
	waitfor.Progress(tb, what, func(context.Context) (bool, string, error) {
		if ok, err := cond(); !ok {
			return false, "not yet", err
		}
		return true, "", nil
	}, waitfor.StallAfter(waitTimeout), waitfor.PollEvery(pollInterval))
}

// createBoundPod creates pod in default as admin and binds it to node (no
// scheduler runs).
func createBoundPod(tb testing.TB, admin kubernetes.Interface, pod *corev1.Pod, node string) *corev1.Pod {
	tb.Helper()
	ctx := context.Background()
	created, err := admin.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("create pod: %v", err)
	}
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod.Name}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	if err := admin.CoreV1().Pods("default").Bind(ctx, b, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("bind pod: %v", err)
	}
	return created
}

// testSchedulerName keeps the test pods away from any scheduler: the tests
// bind them themselves.
const testSchedulerName = "kubelet-test"

func nginxPod(name string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{
			SchedulerName: testSchedulerName,
			Containers:    []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}},
		},
	}
}

// podEvents returns the events about pod uid, in the order they were
// stored.
func podEvents(tb testing.TB, admin kubernetes.Interface, uid types.UID) []corev1.Event {
	tb.Helper()
	list, err := admin.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.UID == uid {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.ParseInt(out[i].ResourceVersion, 10, 64)
		b, _ := strconv.ParseInt(out[j].ResourceVersion, 10, 64)
		return a < b
	})
	return out
}

func reasons(events []corev1.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Reason)
	}
	return out
}

func countReason(events []corev1.Event, reason string) int {
	n := 0
	for _, e := range events {
		if e.Reason == reason {
			n += int(max(e.Count, 1))
		}
	}
	return n
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func TestKubeletAgainstCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := mustStartCluster(t)
	admin := adminClient(t, c)
	ctx := context.Background()

	t.Run("node registers Ready and renews its lease", func(t *testing.T) {
		// An unchanged status is reported every StatusReportFrequency.
		startKubelet(t, c, "node-reg", func(cfg *kubelet.Config) { cfg.StatusReportFrequency = 1500 * time.Millisecond })
		var node *corev1.Node
		waitFor(t, "node-reg Ready", func() (bool, error) {
			n, err := admin.CoreV1().Nodes().Get(ctx, "node-reg", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			node = n
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue && c.Reason == "KubeletReady" {
					return true, nil
				}
			}
			return false, nil
		})
		a := node.Status.Allocatable
		if cpu, mem, pods := a[corev1.ResourceCPU], a[corev1.ResourceMemory], a[corev1.ResourcePods]; cpu.String() != "4" || mem.String() != "8092Mi" || pods.String() != "110" {
			t.Errorf("allocatable cpu %s memory %s pods %s, want 4 8092Mi 110", cpu.String(), mem.String(), pods.String())
		}
		if node.Labels["kubernetes.io/hostname"] != "node-reg" || node.Status.NodeInfo.KubeletVersion == "" || node.Spec.PodCIDR == "" {
			t.Errorf("labels %v kubeletVersion %q podCIDR %q", node.Labels, node.Status.NodeInfo.KubeletVersion, node.Spec.PodCIDR)
		}
		var first time.Time
		waitFor(t, "the lease", func() (bool, error) {
			l, err := admin.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-reg", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != "node-reg" || l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 2 || l.Spec.RenewTime == nil {
				t.Fatalf("lease spec %+v", l.Spec)
			}
			if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" || l.OwnerReferences[0].UID != node.UID {
				t.Errorf("lease owners %v, want the Node", l.OwnerReferences)
			}
			first = l.Spec.RenewTime.Time
			return true, nil
		})
		waitFor(t, "the lease renewed", func() (bool, error) {
			l, err := admin.CoordinationV1().Leases("kube-node-lease").Get(ctx, "node-reg", metav1.GetOptions{})
			return err == nil && l.Spec.RenewTime.After(first), err
		})
		heartbeat := func(n *corev1.Node) time.Time {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady {
					return c.LastHeartbeatTime.Time
				}
			}
			return time.Time{}
		}
		waitFor(t, "a new heartbeat in the node status", func() (bool, error) {
			n, err := admin.CoreV1().Nodes().Get(ctx, "node-reg", metav1.GetOptions{})
			return err == nil && heartbeat(n).After(heartbeat(node)), err
		})
		// Starting, NodeAllocatableEnforced and the conditions' events.
		waitFor(t, "the node's Starting event", func() (bool, error) {
			list, err := admin.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for _, e := range list.Items {
				if e.InvolvedObject.Kind == "Node" && e.InvolvedObject.Name == "node-reg" && e.Reason == "Starting" &&
					e.Message == "Starting kubelet." && e.Source.Component == "kubelet" && e.Source.Host == "node-reg" {
					return true, nil
				}
			}
			return false, nil
		})
	})

	t.Run("pod runs, then is deleted", func(t *testing.T) {
		k := startKubelet(t, c, "node-life", func(cfg *kubelet.Config) { cfg.PodCIDR = "10.244.7.0/24" })
		sub := k.cfg.Recorder.Subscribe(0)
		defer sub.Close()
		wctx, cancel := context.WithTimeout(ctx, waitTimeout)
		defer cancel()
		w, err := admin.CoreV1().Pods("default").Watch(wctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "web").String()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		pod := createBoundPod(t, admin, nginxPod("web", nil), "node-life")

		// Pending (ContainerCreating) ... Running and Ready.
		var seen []string
		var running *corev1.Pod
		for running == nil {
			ev, ok := <-w.ResultChan()
			if !ok {
				t.Fatalf("watch ended; saw %v", seen)
			}
			p := ev.Object.(*corev1.Pod)
			st := string(p.Status.Phase)
			if len(p.Status.ContainerStatuses) > 0 {
				if w := p.Status.ContainerStatuses[0].State.Waiting; w != nil {
					st += "/" + w.Reason
				}
			}
			if len(seen) == 0 || seen[len(seen)-1] != st {
				seen = append(seen, st)
			}
			if p.Status.Phase == corev1.PodRunning && isReady(p) {
				running = p
			}
		}
		if !contains(seen, "Pending/ContainerCreating") || seen[len(seen)-1] != "Running" {
			t.Errorf("phases seen %v, want Pending/ContainerCreating ... Running", seen)
		}
		_, cidr, _ := net.ParseCIDR("10.244.7.0/24")
		if ip := net.ParseIP(running.Status.PodIP); ip == nil || !cidr.Contains(ip) {
			t.Errorf("podIP %q, want one from 10.244.7.0/24", running.Status.PodIP)
		}
		if running.Status.HostIP != k.cfg.NodeIP {
			t.Errorf("hostIP %q, want %s", running.Status.HostIP, k.cfg.NodeIP)
		}
		cs := running.Status.ContainerStatuses[0]
		if !strings.HasPrefix(cs.ContainerID, "kubesim://") || !strings.HasPrefix(cs.ImageID, "docker.io/library/nginx@sha256:") || !cs.Ready {
			t.Errorf("container status %+v", cs)
		}
		waitFor(t, "the kubelet's events", func() (bool, error) {
			return len(podEvents(t, admin, pod.UID)) >= 4, nil
		})
		events := podEvents(t, admin, pod.UID)
		if got, want := strings.Join(reasons(events), " "), "Pulling Pulled Created Started"; got != want {
			t.Errorf("events %s, want %s", got, want)
		}
		for _, e := range events {
			if e.Source.Component != "kubelet" || e.Source.Host != "node-life" || e.InvolvedObject.FieldPath != "spec.containers{nginx}" {
				t.Errorf("event %s: source %+v fieldPath %q", e.Reason, e.Source, e.InvolvedObject.FieldPath)
			}
		}

		if err := admin.CoreV1().Pods("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		var modified, deleted bool
		for !deleted {
			ev, ok := <-w.ResultChan()
			if !ok {
				t.Fatal("watch ended before the pod was deleted")
			}
			p := ev.Object.(*corev1.Pod)
			switch {
			case ev.Type == watch.Modified && p.DeletionTimestamp != nil:
				modified = true
			case ev.Type == watch.Deleted:
				if !modified {
					t.Error("DELETED before a MODIFIED with deletionTimestamp")
				}
				deleted = true
			}
		}
		waitFor(t, "the Killing event", func() (bool, error) {
			for _, e := range podEvents(t, admin, pod.UID) {
				if e.Reason == "Killing" && e.Message == "Stopping container nginx" {
					return true, nil
				}
			}
			return false, nil
		})
		// The flow: runtime actions, then status reports, the kill before
		// the final report.
		var flowLog []string
		for len(sub.Events()) > 0 {
			e := <-sub.Events()
			if e.Object.UID != pod.UID {
				continue
			}
			switch {
			case e.Runtime != nil:
				flowLog = append(flowLog, e.Runtime.Action)
			case e.Status != nil:
				// One report per sync: at speed 0 the sandbox, pull,
				// create and start are one sync, the kill and the exit
				// another, so no status between them is sent.
				flowLog = append(flowLog, "status "+e.Status.Phase)
				if e.Status.User != "system:node:node-life" || !strings.Contains(e.Status.Patch, `"metadata":{"uid":"`+string(pod.UID)+`"}`) {
					t.Errorf("status report %+v", e.Status)
				}
			}
		}
		want := "status Pending pull create start status Running kill status Succeeded"
		if got := strings.Join(flowLog, " "); got != want {
			t.Errorf("flow\ngot  %s\nwant %s", got, want)
		}
	})

	t.Run("crash loop", func(t *testing.T) {
		startKubelet(t, c, "node-crash", func(cfg *kubelet.Config) { cfg.Speed = 100 })
		pod := createBoundPod(t, admin, nginxPod("crasher", map[string]string{kubelet.AnnotationExitAfter: "1s", kubelet.AnnotationExitCode: "1"}), "node-crash")
		var counts []int32
		waitFor(t, "CrashLoopBackOff with 3 restarts", func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(ctx, "crasher", metav1.GetOptions{})
			if err != nil || len(p.Status.ContainerStatuses) == 0 {
				return false, err
			}
			cs := p.Status.ContainerStatuses[0]
			if n := len(counts); n == 0 || counts[n-1] != cs.RestartCount {
				counts = append(counts, cs.RestartCount)
			}
			w := cs.State.Waiting
			return cs.RestartCount >= 3 && w != nil && w.Reason == "CrashLoopBackOff" &&
				strings.Contains(w.Message, "restarting failed container=nginx pod=crasher_default(") &&
				cs.LastTerminationState.Terminated != nil && cs.LastTerminationState.Terminated.ExitCode == 1 &&
				p.Status.Phase == corev1.PodRunning, nil
		})
		for i := 1; i < len(counts); i++ {
			if counts[i] < counts[i-1] {
				t.Errorf("restartCount went down: %v", counts)
			}
		}
		waitFor(t, "a BackOff event", func() (bool, error) {
			for _, e := range podEvents(t, admin, pod.UID) {
				if e.Reason == "BackOff" && strings.HasPrefix(e.Message, "Back-off restarting failed container nginx in pod crasher_default(") {
					return true, nil
				}
			}
			return false, nil
		})
	})

	t.Run("a restarted kubelet adopts its running pods", func(t *testing.T) {
		first := startKubelet(t, c, "node-restart", nil)
		pod := createBoundPod(t, admin, nginxPod("survivor", nil), "node-restart")
		waitFor(t, "survivor Running", func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(ctx, "survivor", metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning && isReady(p), err
		})
		waitFor(t, "survivor's Started event", func() (bool, error) {
			return countReason(podEvents(t, admin, pod.UID), "Started") == 1, nil
		})
		first.stop(t)
		// The baseline is the pod as the stopped kubelet left it.
		before, err := admin.CoreV1().Pods("default").Get(ctx, "survivor", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}

		second := startKubelet(t, c, "node-restart", nil)
		sub := second.cfg.Recorder.Subscribe(0)
		defer sub.Close()
		// A second pod shows that the new kubelet is at work.
		createBoundPod(t, admin, nginxPod("newcomer", nil), "node-restart")
		waitFor(t, "newcomer Running", func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(ctx, "newcomer", metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, err
		})
		after, err := admin.CoreV1().Pods("default").Get(ctx, "survivor", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, a := before.Status.ContainerStatuses[0], after.Status.ContainerStatuses[0]
		if a.ContainerID != b.ContainerID || !a.State.Running.StartedAt.Equal(&b.State.Running.StartedAt) || a.RestartCount != 0 {
			t.Errorf("after the restart: containerID %s startedAt %v restartCount %d; before: %s %v", a.ContainerID, a.State.Running.StartedAt, a.RestartCount, b.ContainerID, b.State.Running.StartedAt)
		}
		if after.ResourceVersion != before.ResourceVersion {
			bj, _ := json.Marshal(before)
			aj, _ := json.Marshal(after)
			changes, _ := flow.DiffFields(bj, aj)
			t.Errorf("the new kubelet rewrote the running pod's status (resourceVersion %s, was %s); changed: %v", after.ResourceVersion, before.ResourceVersion, changes)
		}
		events := podEvents(t, admin, pod.UID)
		if countReason(events, "Created") != 1 || countReason(events, "Started") != 1 {
			t.Errorf("events after the restart: %v, want one Created and one Started", reasons(events))
		}
		for len(sub.Events()) > 0 {
			if e := <-sub.Events(); e.Object.UID == pod.UID {
				t.Errorf("the new kubelet acted on the adopted pod: %s", e.Summary)
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
