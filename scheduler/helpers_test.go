package scheduler

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubesim/kubesim/internal/flow"
)

// t0 is the fake clocks' start.
var t0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

// nodeOpt and podOpt change a test object.
type (
	nodeOpt func(*corev1.Node)
	podOpt  func(*corev1.Pod)
)

// makeNode returns a Ready node offering cpu (e.g. "4"), memory ("8Gi")
// and pods.
func makeNode(name, cpu, memory string, pods int64, opts ...nodeOpt) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-uid-" + name), Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(cpu),
				corev1.ResourceMemory: resource.MustParse(memory),
				corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
			},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		},
	}
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	for _, o := range opts {
		o(n)
	}
	return n
}

func withTaint(key, value string, effect corev1.TaintEffect) nodeOpt {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func withLabel(k, v string) nodeOpt {
	return func(n *corev1.Node) { n.Labels[k] = v }
}

func cordoned() nodeOpt { return func(n *corev1.Node) { n.Spec.Unschedulable = true } }

// makePod returns a pod of the default scheduler in namespace default,
// with one container "app" and no requests.
func makePod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{
			SchedulerName: DefaultSchedulerName,
			Containers:    []corev1.Container{{Name: "app", Image: "nginx"}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// requests builds a ResourceList from cpu and memory ("" leaves one out).
func requests(cpu, memory string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return l
}

// withRequests sets the first container's requests.
func withRequests(cpu, memory string) podOpt {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests = requests(cpu, memory) }
}

// withContainer adds a container.
func withContainer(name, cpu, memory string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: name, Image: "busybox", Resources: corev1.ResourceRequirements{Requests: requests(cpu, memory)}})
	}
}

// withInit adds an init container; sidecar makes it restartable.
func withInit(name, cpu, memory string, sidecar bool) podOpt {
	return func(p *corev1.Pod) {
		c := corev1.Container{Name: name, Image: "busybox", Resources: corev1.ResourceRequirements{Requests: requests(cpu, memory)}}
		if sidecar {
			always := corev1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
}

func withPriority(v int32) podOpt { return func(p *corev1.Pod) { p.Spec.Priority = &v } }

func withToleration(t corev1.Toleration) podOpt {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t) }
}

func withNodeSelector(k, v string) podOpt {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[k] = v
	}
}

func onNode(node string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = node } }

// fakeBinder records bindings; err, if set, is returned instead.
type fakeBinder struct {
	mu    sync.Mutex
	bound map[string]string // pod name → node
	err   error
	// onBind, if set, runs before Bind returns (with the binder unlocked).
	onBind func(pod *corev1.Pod, node string)
}

func (b *fakeBinder) Bind(_ context.Context, pod *corev1.Pod, node string) error {
	b.mu.Lock()
	err := b.err
	if err == nil {
		if b.bound == nil {
			b.bound = map[string]string{}
		}
		b.bound[pod.Name] = node
	}
	on := b.onBind
	b.mu.Unlock()
	if on != nil && err == nil {
		on(pod, node)
	}
	return err
}

func (b *fakeBinder) get(pod string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bound[pod]
}

func (b *fakeBinder) count() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]int{}
	for _, n := range b.bound {
		out[n]++
	}
	return out
}

// memScheduler is a scheduler without an API: nodes and pods go straight
// into its cache and queue, bindings into a fakeBinder.
type memScheduler struct {
	*Scheduler
	binder *fakeBinder
	clock  *clocktesting.FakeClock
	rec    *flow.Subscription
}

// newMemScheduler returns a memScheduler with FirstByName tie-breaking
// and a flow subscription.
func newMemScheduler(tb testing.TB, nodes ...*corev1.Node) *memScheduler {
	tb.Helper()
	clk := clocktesting.NewFakeClock(t0)
	rec := flow.NewRecorder()
	cfg := &Config{SchedulerName: DefaultSchedulerName, InitialBackoff: DefaultInitialBackoff, MaxBackoff: DefaultMaxBackoff,
		Clock: clk, TieBreaker: FirstByName, Recorder: rec}
	s := newScheduler(cfg, nil)
	b := &fakeBinder{}
	s.binder = b
	sub := rec.Subscribe(10000)
	tb.Cleanup(sub.Close)
	m := &memScheduler{Scheduler: s, binder: b, clock: clk, rec: sub}
	for _, n := range nodes {
		m.cache.AddNode(n)
	}
	return m
}

// scheduleNext pops the next pod and runs one attempt to its end,
// binding included. It fails the test if no pod is waiting in activeQ.
func (m *memScheduler) scheduleNext(tb testing.TB) {
	tb.Helper()
	if len(m.queue.contents().Active) == 0 {
		tb.Fatalf("scheduleNext: activeQ is empty")
	}
	qp, _ := m.queue.Pop()
	m.scheduleOne(context.Background(), qp)
	m.apiWG.Wait()
}

// lastEvent returns the last flow event recorded so far.
func (m *memScheduler) lastEvent(tb testing.TB) flow.Event {
	tb.Helper()
	var last *flow.Event
	for {
		select {
		case e := <-m.rec.Events():
			last = &e
			continue
		default:
		}
		break
	}
	if last == nil {
		tb.Fatalf("no flow event recorded")
	}
	return *last
}
