package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

func TestDiscovery(t *testing.T) {
	ts := startServer(t)

	t.Run("legacy", func(t *testing.T) {
		code, body := ts.do(t, "GET", "/api", "", "")
		if code != 200 || !strings.Contains(body, `"kind":"APIVersions","versions":["v1"]`) {
			t.Errorf("/api: %d %s", code, body)
		}
		var list metav1.APIResourceList
		_, body = ts.do(t, "GET", "/api/v1", "", "")
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		byName := map[string]metav1.APIResource{}
		for _, r := range list.APIResources {
			byName[r.Name] = r
		}
		pods := byName["pods"]
		if pods.Kind != "Pod" || !pods.Namespaced || pods.SingularName != "pod" || strings.Join(pods.ShortNames, ",") != "po" ||
			strings.Join(pods.Verbs, ",") != "create,delete,deletecollection,get,list,patch,update,watch" || strings.Join(pods.Categories, ",") != "all" {
			t.Errorf("pods = %+v", pods)
		}
		for name, want := range map[string]string{"pods/status": "get,patch,update", "pods/binding": "create", "nodes/status": "get,patch,update",
			"namespaces/finalize": "update", "bindings": "create"} {
			if got := strings.Join(byName[name].Verbs, ","); got != want {
				t.Errorf("%s verbs = %q, want %q", name, got, want)
			}
		}
		for name, short := range map[string]string{"nodes": "no", "namespaces": "ns", "events": "ev"} {
			if got := strings.Join(byName[name].ShortNames, ","); got != short {
				t.Errorf("%s shortNames = %q, want %q", name, got, short)
			}
		}
		if byName["nodes"].Namespaced || byName["namespaces"].Namespaced {
			t.Error("nodes and namespaces must be cluster-scoped")
		}
		code, body = ts.do(t, "GET", "/apis/coordination.k8s.io/v1", "", "")
		if code != 200 || !strings.Contains(body, `"name":"leases"`) {
			t.Errorf("/apis/coordination.k8s.io/v1: %d %s", code, body)
		}
		code, body = ts.do(t, "GET", "/apis", "", "")
		if code != 200 || !strings.Contains(body, `"name":"coordination.k8s.io"`) || !strings.Contains(body, `"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}`) {
			t.Errorf("/apis: %d %s", code, body)
		}
	})

	t.Run("aggregated", func(t *testing.T) {
		accept := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
		req, _ := http.NewRequest("GET", ts.url+"/apis", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
			t.Errorf("Content-Type = %q", ct)
		}
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range list.Items {
			for _, r := range g.Versions[0].Resources {
				got = append(got, g.Name+"/"+r.Resource)
			}
		}
		// The aggregator's order, upstream's: its own group first, then the
		// APIServices' groupPriorityMinimum (authorization 17600, autoscaling 17500, batch 17400, policy 17100, rbac 17000,
		// apiextensions 16700, coordination 16500).
		want := "apiregistration.k8s.io/apiservices apps/controllerrevisions apps/daemonsets apps/deployments apps/replicasets apps/statefulsets events.k8s.io/events authentication.k8s.io/selfsubjectreviews authentication.k8s.io/tokenreviews authorization.k8s.io/localsubjectaccessreviews authorization.k8s.io/selfsubjectaccessreviews authorization.k8s.io/selfsubjectrulesreviews authorization.k8s.io/subjectaccessreviews autoscaling/horizontalpodautoscalers batch/cronjobs batch/jobs certificates.k8s.io/certificatesigningrequests networking.k8s.io/ingressclasses networking.k8s.io/ingresses networking.k8s.io/networkpolicies policy/poddisruptionbudgets rbac.authorization.k8s.io/clusterrolebindings rbac.authorization.k8s.io/clusterroles rbac.authorization.k8s.io/rolebindings rbac.authorization.k8s.io/roles storage.k8s.io/storageclasses apiextensions.k8s.io/customresourcedefinitions scheduling.k8s.io/priorityclasses coordination.k8s.io/leases discovery.k8s.io/endpointslices"
		if strings.Join(got, " ") != want {
			t.Errorf("aggregated /apis lists %v, want %s", got, want)
		}
	})

	t.Run("client-go discovery", func(t *testing.T) {
		dc := discovery.NewDiscoveryClientForConfigOrDie(ts.restConfig())
		_, lists, err := dc.ServerGroupsAndResources()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range lists {
			for _, r := range l.APIResources {
				names = append(names, l.GroupVersion+"/"+r.Name)
			}
		}
		got := strings.Join(names, " ")
		for _, want := range []string{"v1/pods", "v1/pods/status", "v1/pods/binding", "v1/nodes", "v1/namespaces", "v1/events", "coordination.k8s.io/v1/leases"} {
			if !strings.Contains(got+" ", want+" ") {
				t.Errorf("discovery lacks %s: %s", want, got)
			}
		}
		v, err := dc.ServerVersion()
		if err != nil || v.Major != "1" || !strings.HasPrefix(v.GitVersion, "v1.") {
			t.Errorf("version = %+v, %v", v, err)
		}
	})

	t.Run("health", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/livez", "/readyz", "/healthz/etcd"} {
			if code, body := ts.do(t, "GET", p, "", ""); code != 200 || body != "ok" {
				t.Errorf("%s = %d %q, want 200 ok", p, code, body)
			}
		}
		if code, body := ts.do(t, "GET", "/readyz?verbose", "", ""); code != 200 || !strings.Contains(body, "[+]etcd ok") || !strings.Contains(body, "readyz check passed") {
			t.Errorf("/readyz?verbose = %d %q", code, body)
		}
	})
}

func TestTables(t *testing.T) {
	ts := startServer(t)
	mustCreatePod(t, ts.client, "default", testPod("web", nil))
	accept := "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	var table metav1.Table
	_, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods?limit=500", "", "", "Accept", accept)
	if err := json.Unmarshal([]byte(body), &table); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority == 0 {
			cols = append(cols, c.Name)
		}
	}
	if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" || strings.Join(cols, ",") != "Name,Ready,Status,Restarts,Age" {
		t.Fatalf("table %s/%s columns %v", table.APIVersion, table.Kind, cols)
	}
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "web" || table.Rows[0].Cells[1] != "0/1" || table.Rows[0].Cells[2] != "Pending" {
		t.Errorf("rows = %+v", table.Rows)
	}
	if !strings.Contains(string(table.Rows[0].Object.Raw), `"kind":"PartialObjectMetadata"`) {
		t.Errorf("row object = %s, want PartialObjectMetadata by default", table.Rows[0].Object.Raw)
	}
	if table.ResourceVersion == "" {
		t.Error("table has no resourceVersion")
	}
	_, body = ts.do(t, "GET", "/api/v1/namespaces/default/pods/web?includeObject=Object", "", "", "Accept", accept)
	if !strings.Contains(body, `"kind":"Table"`) || !strings.Contains(body, `"object":{"kind":"Pod"`) {
		t.Errorf("get as Table with includeObject=Object: %.300s", body)
	}
	_, body = ts.do(t, "GET", "/api/v1/namespaces", "", "", "Accept", accept)
	if !strings.Contains(body, `"name":"Status"`) || !strings.Contains(body, `"cells":["default","Active"`) {
		t.Errorf("namespaces table: %.400s", body)
	}
}

// readWatch reads watch lines from a streaming response until n lines or
// the stream ends.
func readWatch(t *testing.T, ts *testServer, path string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch %s: status %d", path, resp.StatusCode)
	}
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for len(lines) < n && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func TestWatchOverHTTP(t *testing.T) {
	ts := startServer(t)
	p := mustCreatePod(t, ts.client, "default", testPod("a", nil))

	t.Run("timeoutSeconds ends the stream cleanly", func(t *testing.T) {
		start := time.Now()
		lines := readWatch(t, ts, "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1&resourceVersion="+p.ResourceVersion, 100)
		if len(lines) != 0 {
			t.Errorf("got %v, want no events and a clean end", lines)
		}
		// readWatch gives up at waitTimeout: the server must have ended
		// the stream before, however slow the machine.
		if took := time.Since(start); took >= waitTimeout {
			t.Errorf("stream did not end after its timeout (read for %v)", took)
		}
	})

	t.Run("sendInitialEvents", func(t *testing.T) {
		lines := readWatch(t, ts, "/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", 2)
		if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"ADDED","object":{"kind":"Pod"`) ||
			!strings.HasPrefix(lines[1], `{"type":"BOOKMARK"`) || !strings.Contains(lines[1], `"annotations":{"k8s.io/initial-events-end":"true"}`) {
			t.Errorf("got %v, want ADDED a then the annotated BOOKMARK", lines)
		}
	})

	t.Run("bookmarks", func(t *testing.T) {
		lines := readWatch(t, ts, "/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&resourceVersion="+p.ResourceVersion, 1)
		if len(lines) != 1 || !strings.HasPrefix(lines[0], `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"`) {
			t.Errorf("got %v, want a BOOKMARK", lines)
		}
	})

	t.Run("legacy path for one object", func(t *testing.T) {
		lines := readWatch(t, ts, "/api/v1/watch/namespaces/default/pods/a?timeoutSeconds=1", 5)
		if len(lines) != 1 || !strings.Contains(lines[0], `"name":"a"`) || !strings.HasPrefix(lines[0], `{"type":"ADDED"`) {
			t.Errorf("got %v, want one ADDED for a", lines)
		}
	})

	t.Run("table watch", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+"/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		if !sc.Scan() || !strings.Contains(sc.Text(), `"kind":"Table"`) || !strings.Contains(sc.Text(), `"columnDefinitions":[{"name":"Name"`) {
			t.Errorf("first table event: %.300s", sc.Text())
		}
	})
}

func TestNamespaceDeletion(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	c := ts.client.CoreV1()
	if _, err := c.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	held := testPod("held", nil)
	held.Finalizers = []string{"example.com/hold"}
	mustCreatePod(t, ts.client, "team", held)
	if err := c.Namespaces().Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := c.Namespaces().Get(ctx, "team", metav1.GetOptions{})
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("namespace after delete: %v %v, want Terminating", ns, err)
	}
	_, err = c.Pods("team").Create(ctx, testPod("late", nil), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "unable to create new content in namespace team because it is being terminated") {
		t.Errorf("create in a terminating namespace: err = %v, want 403", err)
	}
	// The API server empties nothing itself: that is the controller
	// manager's namespace controller's work. Without it the pod is left
	// alone and the namespace stays Terminating, as with a kube-apiserver
	// alone.
	p, err := c.Pods("team").Get(ctx, "held", metav1.GetOptions{})
	if err != nil || p.DeletionTimestamp != nil {
		t.Fatalf("pod after its namespace's delete: %v (err %v), want it untouched", p, err)
	}
	if _, err := c.Namespaces().Get(ctx, "team", metav1.GetOptions{}); err != nil {
		t.Fatalf("namespace gone without a namespace controller: %v", err)
	}
	// Emptying spec.finalizers through namespaces/finalize, as the
	// namespace controller does at the end, removes it.
	ns.Spec.Finalizers = nil
	if _, err := c.Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaces().Get(ctx, "team", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace after finalize: err = %v, want NotFound", err)
	}
}
