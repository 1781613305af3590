package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
)

// haSpeed is the leader election speed of the tests: a Lease of 2 s,
// renewed within 1.3 s, tried every 0.27 s.
const haSpeed = 7.5

// startHACluster starts a cluster with its kubelets but neither a
// scheduler nor a controller manager, whose instances run leader
// election at leSpeed; the rest of the cluster runs at speed 0.
func startHACluster(t *testing.T, leSpeed float64) (*cluster.Cluster, kubernetes.Interface) {
	t.Helper()
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.Scheduler, cfg.ControllerManager = false, false
		// Nothing makes the default service accounts before a controller
		// manager runs (clustertest.APIOnly's reason).
		cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName}
	})
	c.SetLeaderElectionSpeed(leSpeed)
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	return c, admin
}

// waitLeader waits until the Lease read by leader is held by one of
// identities and returns that one.
func waitLeader(t testing.TB, leader func(context.Context) (string, error), identities ...string) string {
	t.Helper()
	var got string
	eventually(t, fmt.Sprintf("the Lease held by one of %q", identities), func() (bool, string) {
		h, err := leader(context.Background())
		if err != nil {
			return false, err.Error()
		}
		got = h
		for _, id := range identities {
			if h == id {
				return true, ""
			}
		}
		return false, fmt.Sprintf("holder %q", h)
	})
	return got
}

// mustIdentity returns the identity of a running instance.
func mustIdentity(t testing.TB, identity func(string) (string, bool), name string) string {
	t.Helper()
	id, ok := identity(name)
	if !ok {
		t.Fatalf("instance %s: not running", name)
	}
	return id
}

// flowInstances collects, from a subscription to the cluster's recorder,
// the instance named by each flow event that matches.
type flowInstances struct {
	mu sync.Mutex
	// byObject maps an object's name to the instances of its matching
	// events, in order.
	byObject map[string][]string
	done     chan struct{}
}

// watchFlow subscribes to rec and collects the instance of every event
// match selects, until the test ends.
func watchFlow(t testing.TB, rec *flow.Recorder, match func(flow.Event) bool) *flowInstances {
	t.Helper()
	sub := rec.Subscribe(1 << 16)
	f := &flowInstances{byObject: map[string][]string{}, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for ev := range sub.Events() {
			if match(ev) {
				f.mu.Lock()
				f.byObject[ev.Object.Name] = append(f.byObject[ev.Object.Name], ev.Instance)
				f.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		sub.Close()
		<-f.done
		if n := sub.Dropped(); n > 0 {
			t.Errorf("the flow subscription dropped %d events", n)
		}
	})
	return f
}

// of returns the instances recorded for the object named name.
func (f *flowInstances) of(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.byObject[name]...)
}

// stage4 selects the scheduler's stage-4 events (the attempt that found a
// node for a pod).
func stage4(ev flow.Event) bool {
	return ev.Component == "scheduler" && ev.Stage == flow.StageScheduled
}

// createPods creates the pods default/<prefix>-<i> for i in [from, to),
// with a few requests at once.
func createPods(t testing.TB, admin kubernetes.Interface, prefix string, from, to int) []string {
	t.Helper()
	names := make([]string, 0, to-from)
	errs := make(chan error, to-from)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := from; i < to; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		names = append(names, name)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, err := admin.CoreV1().Pods("default").Create(context.Background(), &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			}, metav1.CreateOptions{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("create pod: %v", err)
		}
	}
	return names
}

// waitBound waits until every pod of names has a node.
func waitBound(t testing.TB, admin kubernetes.Interface, names []string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d pods bound", len(names)), func() (bool, string) {
		pods, err := admin.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		node := map[string]string{}
		for _, p := range pods.Items {
			node[p.Name] = p.Spec.NodeName
		}
		var pending []string
		for _, n := range names {
			if node[n] == "" {
				pending = append(pending, n)
			}
		}
		return len(pending) == 0, fmt.Sprintf("%d pending: %.200q", len(pending), pending)
	})
}

// nodeNameWatch follows, through a watch of the pods of default that
// starts before any is created, every value of spec.nodeName each pod
// takes.
type nodeNameWatch struct {
	mu sync.Mutex
	// nodes maps a pod to the non-empty values its spec.nodeName took,
	// each time it changed.
	nodes map[string][]string
}

// watchNodeNames starts a nodeNameWatch until the test ends.
func watchNodeNames(t testing.TB, admin kubernetes.Interface) *nodeNameWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lw := &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return admin.CoreV1().Pods("default").Watch(ctx, o)
	}}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, lw)
	if err != nil {
		t.Fatal(err)
	}
	w := &nodeNameWatch{nodes: map[string][]string{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range rw.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.Spec.NodeName == "" {
				continue
			}
			w.mu.Lock()
			seen := w.nodes[p.Name]
			if len(seen) == 0 || seen[len(seen)-1] != p.Spec.NodeName {
				w.nodes[p.Name] = append(seen, p.Spec.NodeName)
			}
			w.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		rw.Stop()
		<-done
	})
	return w
}

// changed returns the pods whose spec.nodeName took more than one value.
func (w *nodeNameWatch) changed() map[string][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]string{}
	for p, nodes := range w.nodes {
		if len(nodes) > 1 {
			out[p] = nodes
		}
	}
	return out
}

// seen returns how many pods the watch saw with a node.
func (w *nodeNameWatch) seen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.nodes)
}

// auditedBindings counts, per pod of default, the bindings the API
// server accepted (POST pods/<name>/binding answered 201), from its audit
// log.
func auditedBindings(t testing.TB, dataDir string) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, "logs", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), `"binding"`) {
			continue
		}
		var ev struct {
			Stage     string
			ObjectRef struct{ Resource, Namespace, Name, Subresource string }
			// ResponseStatus is the answer's status.
			ResponseStatus struct{ Code int }
		}
		if json.Unmarshal(line, &ev) != nil || ev.Stage != "ResponseComplete" {
			continue
		}
		if r := ev.ObjectRef; r.Resource == "pods" && r.Subresource == "binding" && r.Namespace == "default" && ev.ResponseStatus.Code == 201 {
			counts[r.Name]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// checkBoundOnce fails the test unless every pod of names, once its
// spec.nodeName was set, kept it (w saw one value), and no pod got two
// accepted bindings (the audit log). A pod may have none there: a
// binding sent by a scheduler killed while it waited for the answer can
// be written to etcd and still answered 409 "context canceled", as
// kube-apiserver's BindingREST turns every error that is no status into
// a Conflict. It returns how many pods were so bound.
func checkBoundOnce(t testing.TB, dataDir string, w *nodeNameWatch, names []string) (unanswered int) {
	t.Helper()
	eventually(t, "the watch to see every pod bound", func() (bool, string) {
		return w.seen() >= len(names), fmt.Sprintf("%d seen", w.seen())
	})
	for p, nodes := range w.changed() {
		t.Errorf("pod %s: spec.nodeName changed: %q", p, nodes)
	}
	counts := auditedBindings(t, dataDir)
	for _, n := range names {
		switch counts[n] {
		case 0:
			unanswered++
		case 1:
		default:
			t.Errorf("pod %s: %d accepted bindings, want 1", n, counts[n])
		}
	}
	return unanswered
}
