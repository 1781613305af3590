package cluster_test

import (
	"strconv"
	"strings"
	"testing"
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
