package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
)

// mysqlManifest is the watch article's StatefulSet: three mysql pods
// behind a headless Service, OrderedReady (the default).
const mysqlManifest = `apiVersion: v1
kind: Service
metadata: {name: mysql}
spec:
  clusterIP: None
  selector: {app: mysql}
  ports: [{port: 3306}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: mysql}
spec:
  serviceName: mysql
  replicas: 3
  selector: {matchLabels: {app: mysql}}
  template:
    metadata: {labels: {app: mysql}}
    spec:
      containers: [{name: mysql, image: "mysql:8.0"}]
`

// TestKubectlStatefulSet drives the article's StatefulSet with the real
// kubectl: mysql-0, mysql-1 and mysql-2 are made in that order, each
// only once the one before is Running and Ready (told by the order of
// the watch events, which is etcd's); scale to 1 deletes mysql-2, then
// mysql-1; set image rolls the pods, and rollout undo brings the first
// revision back. Skipped when kubectl is not on PATH.
func TestKubectlStatefulSet(t *testing.T) {
	c, admin := startNodes(t, 3)
	k := newKubectl(t, c)
	events := watchPods(t, admin, "app=mysql")

	if r := k.run(t, mysqlManifest, "apply", "-f", "-"); r.err != nil || r.stdout != "service/mysql created\nstatefulset.apps/mysql created\n" {
		t.Fatalf("kubectl apply: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	out := k.must(t, "rollout", "status", "statefulset/mysql", "--timeout="+waitTimeout.String())
	if !strings.Contains(out, "3 new pods have been updated") {
		t.Fatalf("rollout status printed %q", out)
	}
	log := events.stop()
	for _, pair := range [][2]string{{"mysql-0", "mysql-1"}, {"mysql-1", "mysql-2"}} {
		ready, added := log.first(pair[0], isReady), log.first(pair[1], isAdded)
		if ready < 0 || added < 0 || added < ready {
			t.Errorf("%s was created at event %d, %s Ready at event %d; want it created after:\n%s", pair[1], added, pair[0], ready, log)
		}
	}

	events = watchPods(t, admin, "app=mysql")
	k.mustPrint(t, "statefulset.apps/mysql scaled\n", "scale", "statefulset/mysql", "--replicas=1")
	waitPodCount(t, admin, "app=mysql", 1)
	log = events.stop()
	gone2, deleting1 := log.first("mysql-2", isDeleted), log.first("mysql-1", isDeleting)
	if gone2 < 0 || deleting1 < 0 || deleting1 < gone2 {
		t.Errorf("mysql-1's deletion began at event %d, mysql-2 was gone at event %d; want mysql-2 gone first:\n%s", deleting1, gone2, log)
	}

	k.mustPrint(t, "statefulset.apps/mysql image updated\n", "set", "image", "statefulset/mysql", "mysql=mysql:8.4")
	k.must(t, "rollout", "status", "statefulset/mysql", "--timeout="+waitTimeout.String())
	wantImage(t, admin, "mysql-0", "mysql:8.4")
	k.mustPrint(t, "statefulset.apps/mysql rolled back\n", "rollout", "undo", "statefulset/mysql")
	k.must(t, "rollout", "status", "statefulset/mysql", "--timeout="+waitTimeout.String())
	wantImage(t, admin, "mysql-0", "mysql:8.0")
	if hist := k.must(t, "rollout", "history", "statefulset/mysql"); !strings.Contains(hist, "\n2 ") || !strings.Contains(hist, "\n3 ") {
		t.Errorf("rollout history printed %q, want revisions 2 and 3", hist)
	}
}

// startNodes starts a cluster of n nodes (node-1...) without a metrics
// server and returns an admin client.
func startNodes(t *testing.T, n int) (*cluster.Cluster, kubernetes.Interface) {
	t.Helper()
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.MetricsServer = false
		cfg.Nodes = nil
		for i := 1; i <= n; i++ {
			cfg.Nodes = append(cfg.Nodes, kubelet.DefaultNodeSpec(fmt.Sprintf("node-%d", i)))
		}
	})
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	return c, admin
}

// podEvent is one watch event of a pod, as podLog keeps it.
type podEvent struct {
	typ      watch.EventType
	name, rv string
	ready    bool
	deleting bool
}

// podLog is the pod events a watch saw, in their order.
type podLog []podEvent

func (l podLog) String() string {
	var b strings.Builder
	for i, e := range l {
		fmt.Fprintf(&b, "%d %s %s rv=%s ready=%v deleting=%v\n", i, e.typ, e.name, e.rv, e.ready, e.deleting)
	}
	return b.String()
}

// first is the index of the first event of pod name for which is holds,
// or -1.
func (l podLog) first(name string, is func(podEvent) bool) int {
	for i, e := range l {
		if e.name == name && is(e) {
			return i
		}
	}
	return -1
}

func isReady(e podEvent) bool    { return e.ready && e.typ != watch.Deleted }
func isAdded(e podEvent) bool    { return e.typ == watch.Added }
func isDeleted(e podEvent) bool  { return e.typ == watch.Deleted }
func isDeleting(e podEvent) bool { return e.deleting || e.typ == watch.Deleted }

// podWatch collects the events of a pod watch until stop.
type podWatch struct {
	w    watch.Interface
	mu   sync.Mutex
	log  podLog
	done chan struct{}
}

// watchPods watches the pods of selector in default from now on.
func watchPods(t *testing.T, admin kubernetes.Interface, selector string) *podWatch {
	t.Helper()
	list, err := admin.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	w, err := admin.CoreV1().Pods("default").Watch(context.Background(), metav1.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	pw := &podWatch{w: w, done: make(chan struct{})}
	go pw.collect()
	t.Cleanup(w.Stop)
	return pw
}

func (pw *podWatch) collect() {
	defer close(pw.done)
	for ev := range pw.w.ResultChan() {
		pod, ok := ev.Object.(*corev1.Pod)
		if !ok {
			continue
		}
		pw.mu.Lock()
		pw.log = append(pw.log, podEvent{typ: ev.Type, name: pod.Name, rv: pod.ResourceVersion,
			ready: pod.Status.Phase == corev1.PodRunning && podReady(pod), deleting: pod.DeletionTimestamp != nil})
		pw.mu.Unlock()
	}
}

// stop ends the watch and returns what it saw.
func (pw *podWatch) stop() podLog {
	pw.w.Stop()
	<-pw.done
	return pw.log
}

// waitPodCount waits until exactly n pods of selector exist in default.
func waitPodCount(t *testing.T, admin kubernetes.Interface, selector string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d pods of %s", n, selector), func(ctx context.Context) (bool, error) {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: selector})
		return err == nil && len(list.Items) == n, err
	})
}

// wantImage waits until pod runs image and is Ready.
func wantImage(t *testing.T, admin kubernetes.Interface, pod, image string) {
	t.Helper()
	waitFor(t, pod+" ready with "+image, func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return p.Spec.Containers[0].Image == image && podReady(p) && p.DeletionTimestamp == nil, nil
	})
}
