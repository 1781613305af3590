package scheduler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/transport"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/scheduler"
)

// The end-to-end tests run the scheduler against a real kubesim control
// plane (etcd and the API server only: no kubelets, and not the cluster's
// own scheduler), over HTTPS, as system:kube-scheduler. They live in
// package scheduler_test because the cluster package imports the scheduler. They wait for conditions,
// never for a fixed time, and a slow machine does not fail them:
// waitProgress fails only when the progress it watches has not changed
// for waitfor.Stall; waitTimeout is the one deadline of a wait with
// nothing to watch but its end.
const (
	waitTimeout  = waitfor.Bound
	pollInterval = 20 * time.Millisecond
)

// e2e is a running cluster with a scheduler.
type e2e struct {
	cluster *cluster.Cluster
	admin   kubernetes.Interface
	sched   *scheduler.Scheduler
	flow    *flow.Subscription
	// stop stops the scheduler and waits for Run to return (at most once;
	// the test's cleanup calls it too).
	stop func()
}

// startE2E starts a cluster, creates the nodes as admin and starts a
// scheduler (FirstByName ties) authenticated as system:kube-scheduler by
// client certificate. Everything stops when the test ends.
func startE2E(t *testing.T, nodes ...*corev1.Node) *e2e {
	t.Helper()
	return startE2EWith(t, nil, nodes...)
}

// startE2EWith is startE2E with the scheduler's config changed by change
// (its Recorder is set when change is called).
func startE2EWith(t *testing.T, change func(*scheduler.Config), nodes ...*corev1.Node) *e2e {
	t.Helper()
	return startE2EOn(t, func(_ *cluster.Cluster, cfg *scheduler.Config) {
		if change != nil {
			change(cfg)
		}
	}, nodes...)
}

// startE2EOn is startE2EWith with change given the cluster too.
func startE2EOn(t *testing.T, change func(*cluster.Cluster, *scheduler.Config), nodes ...*corev1.Node) *e2e {
	t.Helper()
	c := clustertest.Start(t, clustertest.APIOnly)
	e := &e2e{cluster: c, admin: mustClient(t, c, pki.Admin())}
	for _, n := range nodes {
		e.createNode(t, n)
	}

	rec := flow.NewRecorder()
	e.flow = rec.Subscribe(10000)
	t.Cleanup(e.flow.Close)
	scfg := scheduler.NewConfig(mustClient(t, c, pki.Scheduler()))
	scfg.Recorder = rec
	scfg.TieBreaker = scheduler.FirstByName
	change(c, scfg)
	s, err := scheduler.New(scfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.sched = s
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	e.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(waitTimeout):
				t.Errorf("Run did not return within %v of its context ending", waitTimeout)
			}
		})
	}
	t.Cleanup(e.stop)
	e.waitFor(t, "the scheduler's informers to sync", func(context.Context) (bool, error) { return s.HasSynced(), nil })
	return e
}

// mustClient returns a clientset for id, authenticated by client
// certificate.
func mustClient(t *testing.T, c *cluster.Cluster, id pki.Identity) kubernetes.Interface {
	t.Helper()
	return mustClientWrapped(t, c, id, nil)
}

// mustClientWrapped is mustClient with the client's transport wrapped by
// wrap (nil: as it is).
func mustClientWrapped(t *testing.T, c *cluster.Cluster, id pki.Identity, wrap transport.WrapperFunc) kubernetes.Interface {
	t.Helper()
	kc, err := c.Authority.Kubeconfig(c.URL, id, pki.ClientCertificate)
	if err != nil {
		t.Fatalf("kubeconfig for %s: %v", id.User, err)
	}
	rc, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		t.Fatalf("rest config for %s: %v", id.User, err)
	}
	// kube-scheduler's client-side rate limit (client-go's default of 5
	// requests per second would pace a test of 30 pods over seconds).
	rc.QPS, rc.Burst = 50, 100
	rc.Wrap(wrap)
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatalf("clientset for %s: %v", id.User, err)
	}
	return cs
}

func (e *e2e) createNode(t *testing.T, n *corev1.Node) {
	t.Helper()
	// There are no kubelets: the node is created with its status
	// (allocatable, Ready), which the API keeps on create.
	created, err := e.admin.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node %s: %v", n.Name, err)
	}
	if created.Status.Allocatable.Cpu().Cmp(*n.Status.Allocatable.Cpu()) != 0 {
		t.Fatalf("node %s created with allocatable cpu %v, want %v", n.Name, created.Status.Allocatable.Cpu(), n.Status.Allocatable.Cpu())
	}
}

func (e *e2e) createPod(t *testing.T, p *corev1.Pod) {
	t.Helper()
	if _, err := e.admin.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", p.Name, err)
	}
}

// waitFor polls cond until it holds, failing the test at once if cond
// returns an error, or once cond has not held for waitTimeout.
func (e *e2e) waitFor(t *testing.T, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	e.waitProgress(t, what, func(ctx context.Context) (bool, string, error) {
		ok, err := cond(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		return ok, "not yet", nil
	})
}

// waitProgress polls poll until it is done, failing the test with what
// and the progress poll last reported once that progress has not changed
// for waitfor.Stall. An error from poll is a failed look: it is retried.
func (e *e2e) waitProgress(t *testing.T, what string, poll waitfor.Poll) {
	t.Helper()
	waitfor.Progress(t, what, poll, waitfor.PollEvery(pollInterval))
}

// waitBound waits until the pod has a node and returns it.
func (e *e2e) waitBound(t *testing.T, name string) string {
	t.Helper()
	var node string
	e.waitFor(t, "pod "+name+" to be bound", func(ctx context.Context) (bool, error) {
		p, err := e.admin.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		node = p.Spec.NodeName
		return node != "", nil
	})
	return node
}

// waitEvent waits for an Event about the pod with the reason and returns
// it.
func (e *e2e) waitEvent(t *testing.T, pod, reason string) corev1.Event {
	t.Helper()
	var found corev1.Event
	e.waitFor(t, reason+" event for "+pod, func(ctx context.Context) (bool, error) {
		list, err := e.admin.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ev := range list.Items {
			if ev.InvolvedObject.Kind == "Pod" && ev.InvolvedObject.Name == pod && ev.Reason == reason {
				found = ev
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// nextFlow returns the next scheduler flow event about the pod.
func (e *e2e) nextFlow(t *testing.T, pod string) flow.Event {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-e.flow.Events():
			if ev.Component == "scheduler" && ev.Object.Name == pod {
				return ev
			}
		case <-deadline:
			t.Fatalf("no scheduler flow event for %s within %v", pod, waitTimeout)
		}
	}
}

func TestEndToEndScheduleAndUnschedulable(t *testing.T) {
	t.Parallel()
	e := startE2E(t, node("node-1", "4", "8Gi"), node("node-2", "4", "8Gi"), node("node-3", "4", "8Gi"))

	// A pod that fits: bound, with the Scheduled event (equal nodes: the
	// tie goes to node-1).
	e.createPod(t, pod("nginx", "100m", "128Mi"))
	if node := e.waitBound(t, "nginx"); node != "node-1" {
		t.Errorf("nginx bound to %q, want node-1", node)
	}
	ev := e.waitEvent(t, "nginx", "Scheduled")
	if want := "Successfully assigned default/nginx to node-1"; ev.Message != want || ev.Type != corev1.EventTypeNormal {
		t.Errorf("Scheduled event: %s %q, want Normal %q", ev.Type, ev.Message, want)
	}
	if ev.Source.Component != scheduler.DefaultSchedulerName {
		t.Errorf("event source %q, want %q", ev.Source.Component, scheduler.DefaultSchedulerName)
	}
	p, err := e.admin.CoreV1().Pods("default").Get(context.Background(), "nginx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.InvolvedObject.UID != p.UID {
		t.Errorf("event about UID %q, want the pod's %q", ev.InvolvedObject.UID, p.UID)
	}
	fe := e.nextFlow(t, "nginx")
	if fe.Stage != flow.StageScheduled || fe.Summary != "nginx → node-1" || fe.Object.UID != p.UID ||
		fe.Scheduling == nil || fe.Scheduling.Chosen != "node-1" || len(fe.Scheduling.Nodes) != 3 {
		t.Errorf("flow event = %s", describe(fe))
	}

	// A pod that fits nowhere: FailedScheduling and PodScheduled=False.
	e.createPod(t, pod("big", "100", ""))
	const msg = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	ev = e.waitEvent(t, "big", "FailedScheduling")
	if ev.Message != msg || ev.Type != corev1.EventTypeWarning {
		t.Errorf("FailedScheduling event: %s %q\nwant Warning %q", ev.Type, ev.Message, msg)
	}
	var cond corev1.PodCondition
	e.waitFor(t, "PodScheduled=False on big", func(ctx context.Context) (bool, error) {
		p, err := e.admin.CoreV1().Pods("default").Get(ctx, "big", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				cond = c
				return c.Status == corev1.ConditionFalse, nil
			}
		}
		return false, nil
	})
	if cond.Reason != corev1.PodReasonUnschedulable || cond.Message != msg {
		t.Errorf("PodScheduled condition: reason %q message %q\nwant %q %q", cond.Reason, cond.Message, corev1.PodReasonUnschedulable, msg)
	}
	fe = e.nextFlow(t, "big")
	if fe.Summary != "big: 0/3 nodes available" || fe.Scheduling.Message != msg || fe.Scheduling.Chosen != "" {
		t.Errorf("flow event = %s", describe(fe))
	}

	// A node with room arrives: the pod is bound, nothing restarted.
	e.createNode(t, node("node-big", "128", "256Gi"))
	if node := e.waitBound(t, "big"); node != "node-big" {
		t.Errorf("big bound to %q, want node-big", node)
	}
	e.waitEvent(t, "big", "Scheduled")
}

// TestEndToEndSpread: LeastAllocated spreads equal pods evenly over equal
// nodes (their capacity alone would allow any split).
func TestEndToEndSpread(t *testing.T) {
	t.Parallel()
	e := startE2E(t, node("node-1", "4", "8Gi"), node("node-2", "4", "8Gi"), node("node-3", "4", "8Gi"))
	const n = 30
	for i := range n {
		e.createPod(t, pod(fmt.Sprintf("web-%02d", i), "100m", ""))
	}
	counts := map[string]int{}
	e.waitProgress(t, "all pods to be bound", func(ctx context.Context) (bool, string, error) {
		list, err := e.admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		clear(counts)
		bound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				counts[p.Spec.NodeName]++
				bound++
			}
		}
		return bound == n, fmt.Sprintf("%d of %d bound", bound, n), nil
	})
	want := map[string]int{"node-1": 10, "node-2": 10, "node-3": 10}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("pods per node = %v, want %v", counts, want)
	}
}

// TestEndToEndSchedulerIdentity: every write the scheduler makes (the
// binding, the status patch, the events) reaches the API server as
// system:kube-scheduler, and RBAC lets it through.
func TestEndToEndSchedulerIdentity(t *testing.T) {
	t.Parallel()
	e := startE2E(t, node("node-1", "1", "8Gi"))
	e.createPod(t, pod("fits", "100m", ""))
	e.createPod(t, pod("too-big", "2", ""))
	e.waitBound(t, "fits")
	e.waitEvent(t, "too-big", "FailedScheduling")

	type write struct{ verb, resource, subresource, name string }
	want := []write{
		{"create", "pods", "binding", "fits"},
		{"patch", "pods", "status", "too-big"},
		{"create", "events", "", ""},
	}
	path := filepath.Join(e.cluster.DataDir, "logs", "audit.log")
	var seen map[write]string // → "user code"
	e.waitFor(t, "the scheduler's writes in "+path, func(context.Context) (bool, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return false, nil
		}
		seen = map[write]string{}
		for _, line := range strings.Split(string(data), "\n") {
			var ev struct {
				Stage string `json:"stage"`
				Verb  string `json:"verb"`
				User  struct {
					Username string `json:"username"`
				} `json:"user"`
				ObjectRef *struct {
					Resource, Subresource, Name string
				} `json:"objectRef"`
				ResponseStatus *struct {
					Code int `json:"code"`
				} `json:"responseStatus"`
			}
			if json.Unmarshal([]byte(line), &ev) != nil || ev.Stage != "ResponseComplete" || ev.ObjectRef == nil || ev.ResponseStatus == nil {
				continue
			}
			w := write{ev.Verb, ev.ObjectRef.Resource, ev.ObjectRef.Subresource, ev.ObjectRef.Name}
			if w.resource == "events" {
				w.name = ""
			}
			seen[w] = fmt.Sprintf("%s %d", ev.User.Username, ev.ResponseStatus.Code)
		}
		for _, w := range want {
			if _, ok := seen[w]; !ok {
				return false, nil
			}
		}
		return true, nil
	})
	for _, w := range want {
		if got := seen[w]; !strings.HasPrefix(got, pki.SchedulerUser+" 20") {
			t.Errorf("%s %s/%s %s: %q, want by %s with a 2xx code", w.verb, w.resource, w.subresource, w.name, got, pki.SchedulerUser)
		}
	}
}

// node returns a Ready node offering cpu, memory and 110 pods, as a
// kubelet would register it.
func node(name, cpu, memory string) *corev1.Node {
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Capacity:    alloc,
			Allocatable: alloc.DeepCopy(),
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		},
	}
}

// pod returns a pod in namespace default with one container requesting
// cpu and memory ("" leaves one out).
func pod(name, cpu, memory string) *corev1.Pod {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		req[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: req},
		}}},
	}
}

func describe(e flow.Event) string {
	s := fmt.Sprintf("%+v", e)
	if e.Scheduling != nil {
		s += fmt.Sprintf(" scheduling=%+v", *e.Scheduling)
	}
	return s
}
