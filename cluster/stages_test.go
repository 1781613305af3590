package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/kubelet"
)

// stagedCluster starts a full cluster (scheduler, nodes kubelets, speed 0)
// with gate g, and subscribes to its flow events.
func stagedCluster(tb testing.TB, nodes int, g *flow.Gate) (*cluster.Cluster, kubernetes.Interface, *flow.Subscription) {
	tb.Helper()
	cfg := clustertest.Config(tb)
	cfg.Nodes = kubelet.DefaultNodes(nodes)
	cfg.Recorder = flow.NewRecorder()
	cfg.Gate = g
	sub := cfg.Recorder.Subscribe(1 << 16)
	tb.Cleanup(sub.Close)
	c := clustertest.StartWith(tb, cfg) // opens the gate before closing
	admin, err := c.AdminClient()
	if err != nil {
		tb.Fatal(err)
	}
	return c, admin, sub
}

// stageLog collects the staged events of every pod, by UID, from a
// subscription, in the order they were recorded.
type stageLog struct {
	mu     sync.Mutex
	stages map[types.UID][]flow.Stage
	names  map[types.UID]string
	kinds  map[types.UID]map[flow.Stage][]string // evidence kinds seen per stage
}

func collectStages(sub *flow.Subscription) *stageLog {
	l := &stageLog{stages: map[types.UID][]flow.Stage{}, names: map[types.UID]string{}, kinds: map[types.UID]map[flow.Stage][]string{}}
	go func() {
		for ev := range sub.Events() {
			if ev.Stage == 0 || ev.Object.Kind != "Pod" {
				continue
			}
			l.mu.Lock()
			uid := ev.Object.UID
			l.stages[uid] = append(l.stages[uid], ev.Stage)
			l.names[uid] = ev.Object.Name
			if l.kinds[uid] == nil {
				l.kinds[uid] = map[flow.Stage][]string{}
			}
			l.kinds[uid][ev.Stage] = append(l.kinds[uid][ev.Stage], evidenceKind(ev))
			l.mu.Unlock()
		}
	}()
	return l
}

func evidenceKind(ev flow.Event) string {
	switch {
	case ev.Request != nil:
		return "request"
	case ev.Etcd != nil:
		return "etcd"
	case ev.Watch != nil:
		return "watch"
	case ev.Scheduling != nil:
		return "scheduling"
	case ev.Runtime != nil:
		return "runtime"
	case ev.Status != nil:
		return "status"
	}
	return "none"
}

// highest returns the highest stage recorded for the pod named name.
func (l *stageLog) highest(name string) flow.Stage {
	l.mu.Lock()
	defer l.mu.Unlock()
	var top flow.Stage
	for uid, n := range l.names {
		if n != name {
			continue
		}
		for _, s := range l.stages[uid] {
			top = max(top, s)
		}
	}
	return top
}

// check reports what is wrong with one pod's staged events: out of order,
// or a stage missing.
func (l *stageLog) check(uid types.UID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := l.stages[uid]
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			return fmt.Sprintf("stages out of order: %v", seen)
		}
	}
	have := map[flow.Stage]bool{}
	for _, s := range seen {
		have[s] = true
	}
	for _, s := range flow.Stages {
		if !have[s.Stage] {
			return fmt.Sprintf("stage %d (%s) missing: %v", s.Stage, s.Name, seen)
		}
	}
	return ""
}

// TestStepThroughMatchesTheAPI steps one pod through every gate point and,
// at each, reads the cluster through the API: what a learner (or kubectl
// in another terminal) sees must be the held stage.
func TestStepThroughMatchesTheAPI(t *testing.T) {
	t.Parallel()
	g := flow.NewGate(flow.ModeStep, 0, nil)
	_, admin, sub := stagedCluster(t, 2, g)
	log := collectStages(sub)
	ctx := context.Background()
	pods := admin.CoreV1().Pods("default")

	created := make(chan error, 1)
	go func() {
		_, err := pods.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
		}, metav1.CreateOptions{})
		created <- err
	}()
	get := func() (*corev1.Pod, error) { return pods.Get(ctx, "nginx", metav1.GetOptions{}) }
	unbound := func(t *testing.T) {
		p, err := get()
		if err != nil || p.Spec.NodeName != "" {
			t.Errorf("want the pod stored and unbound; got %v, err %v", nodeOf(p), err)
		}
	}
	boundNotRunning := func(t *testing.T) {
		p, err := get()
		if err != nil || p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending {
			t.Errorf("want the pod bound and Pending; got node %q phase %q, err %v", nodeOf(p), phaseOf(p), err)
		}
	}
	// At each point, the highest stage recorded so far: the one the point
	// follows, except that the kubelet's watch delivery (stage 6) comes
	// before its own hold, and the kubelet's report (7) before the API
	// server's.
	checks := []struct {
		point   flow.Point
		highest flow.Stage
		api     func(t *testing.T)
	}{
		{flow.PointBeforePersist, 1, func(t *testing.T) {
			if _, err := get(); !apierrors.IsNotFound(err) {
				t.Errorf("admitted but not stored: GET gives %v, want 404", err)
			}
		}},
		{flow.PointBeforeSchedulerWatch, 2, unbound},
		{flow.PointBeforeScheduling, 3, unbound},
		{flow.PointBeforeBinding, 4, unbound},
		{flow.PointBeforeKubeletWatch, 5, func(t *testing.T) {
			boundNotRunning(t)
			if p, err := get(); err == nil && len(p.Status.ContainerStatuses) != 0 {
				t.Errorf("the kubelet has not seen the pod, yet it has container statuses %v", p.Status.ContainerStatuses)
			}
		}},
		{flow.PointBeforeContainers, 6, boundNotRunning},
		{flow.PointBeforeStatusReport, 6, boundNotRunning},
		{flow.PointBeforeStatusPersist, 7, boundNotRunning},
	}
	for _, c := range checks {
		t.Run(string(c.point), func(t *testing.T) {
			wctx, cancel := context.WithTimeout(ctx, waitTimeout)
			defer cancel()
			held, err := g.WaitHeld(wctx)
			if err != nil {
				t.Fatalf("nothing held at %s: %v", c.point, err)
			}
			if len(held) != 1 || held[0].Point != c.point || held[0].Object.Name != "nginx" {
				t.Fatalf("held %v, want nginx at %s", held, c.point)
			}
			c.api(t)
			// Events reach the log through a subscription: wait for
			// the held stage's, then nothing beyond it may be there.
			eventually(t, fmt.Sprintf("stage %d recorded", c.highest), func() (bool, string) {
				got := log.highest("nginx")
				return got >= c.highest, fmt.Sprint(got)
			})
			if got := log.highest("nginx"); got != c.highest {
				t.Errorf("stages recorded up to %d when held at %s, want %d", got, c.point, c.highest)
			}
			if n := g.Advance(); n != 1 {
				t.Errorf("Advance released %d, want 1", n)
			}
		})
	}
	if err := <-created; err != nil {
		t.Fatalf("create: %v", err)
	}
	waitPhase(t, admin, "nginx", corev1.PodRunning)
	eventually(t, "stage 8 of nginx", func() (bool, string) {
		return log.highest("nginx") == flow.StageStatusPersisted, fmt.Sprint(log.highest("nginx"))
	})
	p, _ := get()
	if msg := log.check(p.UID); msg != "" {
		t.Error(msg)
	}
}

// TestTwentyPodsStagesInOrder creates 20 pods at once: every pod's staged
// events arrive in order, all eight, none carrying another pod's UID.
func TestTwentyPodsStagesInOrder(t *testing.T) {
	t.Parallel()
	_, admin, sub := stagedCluster(t, 3, nil)
	log := collectStages(sub)
	ctx := context.Background()
	const n = 20
	uids := make([]types.UID, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%02d", i)},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			uids[i] = p.UID
		}()
	}
	wg.Wait()
	eventually(t, "every pod at stage 8", func() (bool, string) {
		done := 0
		for i := range n {
			if log.highest(fmt.Sprintf("web-%02d", i)) == flow.StageStatusPersisted {
				done++
			}
		}
		return done == n, fmt.Sprintf("%d of %d", done, n)
	})
	log.mu.Lock()
	if len(log.stages) != n {
		t.Errorf("staged events for %d pods, want %d", len(log.stages), n)
	}
	for uid, name := range log.names {
		want := ""
		for i, u := range uids {
			if u == uid {
				want = fmt.Sprintf("web-%02d", i)
			}
		}
		if name != want {
			t.Errorf("events of uid %s name %q, want %q", uid, name, want)
		}
	}
	log.mu.Unlock()
	for i, uid := range uids {
		if msg := log.check(uid); msg != "" {
			t.Errorf("web-%02d: %s", i, msg)
		}
	}
}

func nodeOf(p *corev1.Pod) string {
	if p == nil {
		return ""
	}
	return p.Spec.NodeName
}

func phaseOf(p *corev1.Pod) corev1.PodPhase {
	if p == nil {
		return ""
	}
	return p.Status.Phase
}
