package cluster_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestRestartKeepsObjectsAndResourceVersions stops a cluster and starts a
// new one on the same data dir: objects come back with the same uid and
// resourceVersion, and the next write gets a larger resourceVersion.
func TestRestartKeepsObjectsAndResourceVersions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const identity = "jsonpath={.metadata.uid} {.metadata.resourceVersion}"

	first := mustStartCluster(t, dir)
	k := newKubectl(t, first)
	if got, want := k.mustWith(t, podManifest("web", "nginx:1.27"), "apply", "-f", "-"), "pod/web created\n"; got != want {
		t.Fatalf("apply: got %q, want %q", got, want)
	}
	podBefore := k.must(t, "get", "pod", "web", "-o", identity)
	nsBefore := k.must(t, "get", "ns", "-o", "jsonpath={range .items[*]}{.metadata.name} {.metadata.uid} {.metadata.resourceVersion}{\"\\n\"}{end}")
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if r := k.run(t, "", "get", "pod", "web"); r.err == nil {
		t.Fatalf("kubectl get pod web after Close: got exit 0, stdout %q; want the server gone", r.stdout)
	}

	second := mustStartCluster(t, dir)
	k = newKubectl(t, second) // the new port is in the rewritten kubeconfig

	if got := k.must(t, "get", "pod", "web", "-o", identity); got != podBefore {
		t.Errorf("pod web after restart: got uid and resourceVersion %q, want %q as before", got, podBefore)
	}
	// Bootstrap runs again on every start; it must not recreate or touch
	// the namespaces it made the first time.
	if got := k.must(t, "get", "ns", "-o", "jsonpath={range .items[*]}{.metadata.name} {.metadata.uid} {.metadata.resourceVersion}{\"\\n\"}{end}"); got != nsBefore {
		t.Errorf("namespaces after restart:\ngot\n%s\nwant, as before\n%s", got, nsBefore)
	}
	if rows := table(k.must(t, "get", "pods")); len(rows) != 2 || firstFields(rows[1], 4) != "web 0/1 Pending 0" {
		t.Errorf("kubectl get pods after restart: got %q, want one row \"web 0/1 Pending 0\"", rows)
	}

	_, rvBefore, _ := strings.Cut(podBefore, " ")
	if got, want := k.must(t, "label", "pod", "web", "restarted=yes"), "pod/web labeled\n"; got != want {
		t.Fatalf("label: got %q, want %q", got, want)
	}
	rvAfter := k.must(t, "get", "pod", "web", "-o", "jsonpath={.metadata.resourceVersion}")
	before, err1 := strconv.ParseUint(rvBefore, 10, 64)
	after, err2 := strconv.ParseUint(rvAfter, 10, 64)
	if err1 != nil || err2 != nil || after <= before {
		t.Errorf("resourceVersion of the first write after restart: got %q, want an integer above %q", rvAfter, rvBefore)
	}
	// A new object, too, is numbered after everything written before.
	k.mustWith(t, podManifest("db", "mysql:8"), "apply", "-f", "-")
	rvNew := k.must(t, "get", "pod", "db", "-o", "jsonpath={.metadata.resourceVersion}")
	if n, err := strconv.ParseUint(rvNew, 10, 64); err != nil || n <= after {
		t.Errorf("resourceVersion of a pod created after restart: got %q, want an integer above %d", rvNew, after)
	}
}

// TestRestartAPIServer restarts the API server alone: the scheduler and
// the kubelets reconnect their watches, so a pod created after the
// restart still runs, and one created before is still there.
func TestRestartAPIServer(t *testing.T) {
	t.Parallel()
	c, admin := startFullCluster(t, 1, 0)
	ctx := context.Background()
	before := createPod(t, admin, "before")
	waitPhase(t, admin, before.Name, corev1.PodRunning)
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatalf("RestartAPIServer: %v", err)
	}
	after := createPod(t, admin, "after")
	waitPhase(t, admin, after.Name, corev1.PodRunning)
	got, err := admin.CoreV1().Pods("default").Get(ctx, before.Name, metav1.GetOptions{})
	if err != nil || got.UID != before.UID || got.Status.Phase != corev1.PodRunning {
		t.Errorf("pod from before the restart: %v, err %v", got.Status.Phase, err)
	}
}

// TestCompactEtcd compacts to the current revision. What etcd no longer
// has, the API server cannot read there: a list at an exact older
// resourceVersion gets 410 Expired. A watch from an older resourceVersion
// is another matter: the API server's watch cache still holds those
// changes and serves them, as kube-apiserver's does.
func TestCompactEtcd(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first := createPod(t, admin, "first")
	second := createPod(t, admin, "second")
	createPod(t, admin, "third")
	rev, err := c.CompactEtcd(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if firstRV, _ := strconv.ParseInt(first.ResourceVersion, 10, 64); rev <= firstRV {
		t.Fatalf("compacted at %d, not after the first pod's %d", rev, firstRV)
	}
	_, err = admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) || !strings.Contains(err.Error(), "The resourceVersion for the provided list is too old.") {
		t.Errorf("list at the compacted resourceVersion %s: %v, want 410 Expired", first.ResourceVersion, err)
	}
	ev := firstWatchEvent(t, admin, first.ResourceVersion)
	if p, ok := ev.Object.(*corev1.Pod); ev.Type != watch.Added || !ok || p.Name != second.Name {
		t.Errorf("got %s %T, want ADDED %s replayed by the watch cache", ev.Type, ev.Object, second.Name)
	}
}

// firstWatchEvent watches the pods of default from rv and returns the
// first event (failing the test if none comes within waitTimeout).
func firstWatchEvent(t *testing.T, c kubernetes.Interface, rv string) watch.Event {
	t.Helper()
	w, err := c.CoreV1().Pods("default").Watch(context.Background(), metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		return ev
	case <-time.After(waitTimeout):
		t.Fatalf("no event from a watch from resourceVersion %s within %v", rv, waitTimeout)
	}
	return watch.Event{}
}

// TestWatchFromBeforeRestart: a restarted API server's watch cache starts
// at the revision of its start, so a watch from a resourceVersion seen
// before the restart gets 200 and one ERROR event, 410 Expired "too old
// resource version: X (Y)", as kube-apiserver answers; clients list again.
func TestWatchFromBeforeRestart(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old := createPod(t, admin, "old")
	// A later write: the restarted cache starts after it, so old's
	// resourceVersion is older than its history (the latest one before
	// the restart would still be servable: nothing happened after it).
	createPod(t, admin, "later")
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	ev := firstWatchEvent(t, admin, old.ResourceVersion)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != 410 || !strings.HasPrefix(st.Message, "too old resource version: "+old.ResourceVersion+" (") {
		t.Errorf("got %s %+v, want ERROR 410 too old resource version: %s (…)", ev.Type, ev.Object, old.ResourceVersion)
	}
}
