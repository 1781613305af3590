package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/storage"
)

func TestStaleUpdateConflicts(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	c := ts.client.CoreV1().Pods("default")
	p := mustCreatePod(t, ts.client, "default", testPod("p", nil))
	fresh := p.DeepCopy()
	fresh.Labels = map[string]string{"a": "1"}
	if _, err := c.Update(ctx, fresh, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	p.Labels = map[string]string{"a": "2"}
	_, err := c.Update(ctx, p, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale update: err = %v, want 409 Conflict", err)
	}
	if want := `Operation cannot be fulfilled on pods "p": the object has been modified; please apply your changes to the latest version and try again`; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
}

func TestGenerateName(t *testing.T) {
	ts := startServer(t)
	p := testPod("", nil)
	p.GenerateName = "web-"
	out := mustCreatePod(t, ts.client, "default", p)
	if !strings.HasPrefix(out.Name, "web-") || len(out.Name) != len("web-")+5 {
		t.Errorf("name = %q, want web- and five random characters", out.Name)
	}
	if out.GenerateName != "web-" {
		t.Errorf("generateName = %q, want kept", out.GenerateName)
	}
}

func TestBinding(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	mustCreatePod(t, ts.client, "default", testPod("p", nil))
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"apiVersion":"v1","kind":"Node","name":"node-1"}}`

	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/p/binding", "application/json", binding)
	if code != http.StatusCreated || !strings.Contains(body, `"status":"Success"`) || !strings.Contains(body, `"code":201`) {
		t.Fatalf("first binding: %d %s, want 201 with a Success Status", code, body)
	}
	got, err := ts.client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "node-1" || len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != corev1.PodScheduled || got.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("after binding: nodeName %q conditions %+v, want node-1 and PodScheduled=True", got.Spec.NodeName, got.Status.Conditions)
	}

	code, body = ts.do(t, "POST", "/api/v1/namespaces/default/pods/p/binding", "application/json", strings.Replace(binding, "node-1", "node-2", 1))
	if code != http.StatusConflict || !strings.Contains(body, `Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"node-1\"`) {
		t.Errorf("second binding: %d %s, want 409 with upstream's message", code, body)
	}

	// client-go's Bind (protobuf) and the legacy bindings resource.
	mustCreatePod(t, ts.client, "default", testPod("q", nil))
	err = ts.client.CoreV1().Pods("default").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-2"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("client-go Bind: %v", err)
	}
	mustCreatePod(t, ts.client, "default", testPod("r", nil))
	code, body = ts.do(t, "POST", "/api/v1/namespaces/default/bindings", "application/json", strings.Replace(binding, `"name":"p"`, `"name":"r"`, 1))
	if code != http.StatusCreated {
		t.Errorf("legacy bindings: %d %s", code, body)
	}

	// A pod being deleted cannot be bound.
	held := testPod("held", nil)
	held.Finalizers = []string{"example.com/hold"}
	mustCreatePod(t, ts.client, "default", held)
	if err := ts.client.CoreV1().Pods("default").Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, body = ts.do(t, "POST", "/api/v1/namespaces/default/pods/held/binding", "application/json", strings.Replace(binding, `"name":"p"`, `"name":"held"`, 1))
	if code != http.StatusConflict || !strings.Contains(body, "pod held is being deleted, cannot be assigned to a host") {
		t.Errorf("binding a deleting pod: %d %s, want 409", code, body)
	}
}

func TestStatusSubresource(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	c := ts.client.CoreV1().Pods("default")
	p := mustCreatePod(t, ts.client, "default", testPod("p", nil))

	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP = "10.244.0.5"
	p.Spec.Containers[0].Image = "httpd"
	out, err := c.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status.Phase != corev1.PodRunning || out.Status.PodIP != "10.244.0.5" || out.Spec.Containers[0].Image != "nginx:1.27" {
		t.Errorf("after UpdateStatus: phase %s ip %s image %s, want the status changed and the spec change dropped", out.Status.Phase, out.Status.PodIP, out.Spec.Containers[0].Image)
	}

	out.Status.Phase = corev1.PodFailed
	out.Labels = map[string]string{"x": "y"}
	out2, err := c.Update(ctx, out, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out2.Status.Phase != corev1.PodRunning || out2.Labels["x"] != "y" {
		t.Errorf("after Update: phase %s labels %v, want the status kept and the labels changed", out2.Status.Phase, out2.Labels)
	}

	// Patching status: a merge patch through pods/status.
	patched, err := c.Patch(ctx, "p", "application/merge-patch+json", []byte(`{"status":{"phase":"Succeeded"},"spec":{"activeDeadlineSeconds":5}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if patched.Status.Phase != corev1.PodSucceeded || patched.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("after status patch: phase %s activeDeadlineSeconds %v, want Succeeded and the spec untouched", patched.Status.Phase, patched.Spec.ActiveDeadlineSeconds)
	}
	st, err := ts.client.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces/default/pods/p/status").DoRaw(ctx)
	if err != nil || !strings.Contains(string(st), `"phase":"Succeeded"`) {
		t.Errorf("GET pods/p/status: %v %s", err, st)
	}
}

func TestGracefulDeletion(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	c := ts.client.CoreV1().Pods("default")
	mustCreatePod(t, ts.client, "default", testPod("p", nil))
	if err := c.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, body := ts.do(t, "DELETE", "/api/v1/namespaces/default/pods/p", "", "")
	if code != http.StatusOK || !strings.Contains(body, `"kind":"Pod"`) || !strings.Contains(body, `"deletionGracePeriodSeconds":30`) {
		t.Fatalf("DELETE bound pod: %d %.300s, want 200 with the pod (deletionGracePeriodSeconds 30)", code, body)
	}
	got, err := c.Get(ctx, "p", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("pod after graceful delete: %v %v, want it still there, being deleted", got, err)
	}
	// The kubelet's final delete: grace period 0.
	code, body = ts.do(t, "DELETE", "/api/v1/namespaces/default/pods/p", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}`)
	// Upstream's pod store returns the pod removed (ReturnDeletedObject),
	// not a Status; a ConfigMap's store returns a Status (below).
	if code != http.StatusOK || !strings.Contains(body, `"kind":"Pod"`) || !strings.Contains(body, `"deletionGracePeriodSeconds":0`) {
		t.Fatalf("final delete: %d %s, want the pod removed", code, body)
	}
	if _, err := ts.client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	code, body = ts.do(t, "DELETE", "/api/v1/namespaces/default/configmaps/cm", "", "")
	if code != http.StatusOK || !strings.Contains(body, `"status":"Success"`) || !strings.Contains(body, `"kind":"configmaps"`) {
		t.Fatalf("DELETE configmap: %d %s, want a Success Status naming it", code, body)
	}
	if _, err := c.Get(ctx, "p", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after grace 0: err = %v, want not found", err)
	}
	// Preconditions.
	q := mustCreatePod(t, ts.client, "default", testPod("q", nil))
	err = c.Delete(ctx, "q", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ("+q.ResourceVersion+")") {
		t.Errorf("stale precondition: err = %v, want 409", err)
	}
}

func TestDeleteCollection(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	for i := 0; i < 6; i++ {
		app := "web"
		if i%2 == 1 {
			app = "db"
		}
		mustCreatePod(t, ts.client, "default", testPod(fmt.Sprintf("p%d", i), map[string]string{"app": app}))
	}
	if err := ts.client.CoreV1().Pods("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=web"}); err != nil {
		t.Fatal(err)
	}
	list, err := ts.client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, p := range list.Items {
		left = append(left, p.Name)
	}
	if fmt.Sprint(left) != "[p1 p3 p5]" {
		t.Errorf("left %v, want the db pods [p1 p3 p5]", left)
	}
}

// Informers with client-go's defaults use the WatchList protocol
// (sendInitialEvents); they must sync and then see changes.
func TestInformerWithDefaults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ts := startServer(t)
	mustCreatePod(t, ts.client, "default", testPod("before", nil))

	var watchListRequests, listRequests atomic.Int32
	cfg := ts.restConfig()
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			q := r.URL.Query()
			if strings.HasSuffix(r.URL.Path, "/pods") {
				if q.Get("sendInitialEvents") == "true" && q.Get("watch") == "true" {
					watchListRequests.Add(1)
				} else if q.Get("watch") != "true" {
					listRequests.Add(1)
				}
			}
			return rt.RoundTrip(r)
		})
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Pods().Informer()
	var mu sync.Mutex
	var events []string
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { mu.Lock(); events = append(events, "add "+obj.(*corev1.Pod).Name); mu.Unlock() },
		UpdateFunc: func(_, obj any) {
			mu.Lock()
			events = append(events, "update "+obj.(*corev1.Pod).Name)
			mu.Unlock()
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			mu.Lock()
			events = append(events, "delete "+obj.(*corev1.Pod).Name)
			mu.Unlock()
		},
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, waitTimeout)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync within %v", waitTimeout)
	}
	if watchListRequests.Load() == 0 || listRequests.Load() != 0 {
		t.Errorf("informer made %d WatchList and %d list requests, want it to sync through WatchList only", watchListRequests.Load(), listRequests.Load())
	}

	mustCreatePod(t, ts.client, "default", testPod("after", nil))
	setLabel(t, ts.client, "after", "x", "y")
	if err := ts.client.CoreV1().Pods("default").Delete(ctx, "before", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"add before", "add after", "update after", "update before", "delete before"}
	waitFor(t, waitTimeout, "informer events "+fmt.Sprint(want), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprint(events) == fmt.Sprint(want)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// After a compaction, what etcd no longer has cannot be read there: a
// list at the compacted resourceVersion gets 410 Expired. A watch from it
// is served by the watch cache, which keeps its own history, as
// kube-apiserver's does.
func TestCompactedResourceVersion(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, func(c *apiserver.Config) { c.BookmarkInterval = time.Hour })
	c := ts.client

	first := mustCreatePod(t, c, "default", testPod("p", nil))
	setLabel(t, c, "p", "x", "1")
	last := setLabel(t, c, "p", "x", "2")
	compactTo(t, ts, last.ResourceVersion)

	_, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) || err.Error() != "The resourceVersion for the provided list is too old." {
		t.Errorf("list at the compacted resourceVersion: %v, want 410 The resourceVersion for the provided list is too old.", err)
	}
	w, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if p, ok := ev.Object.(*corev1.Pod); ev.Type != watch.Modified || !ok || p.Labels["x"] != "1" {
			t.Errorf("got %s %v, want MODIFIED p with x=1, replayed by the watch cache", ev.Type, describeObj(ev.Object))
		}
	case <-time.After(waitTimeout):
		t.Fatal("no event")
	}
}

// A watch from before the watch cache's history gets HTTP 200 and one
// ERROR event, 410 Expired "too old resource version: X (Y)"; an informer
// whose re-watch hits that relists and carries on.
func TestWatchTooOldForTheCache(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A history of 8 changes: a few writes elsewhere push out the ones
	// an informer would resume from.
	ts := startServer(t, func(c *apiserver.Config) {
		c.BookmarkInterval = time.Hour
		c.WatchCache = storage.WindowConfig{LowerBound: 8, UpperBound: 8}
	})
	c := ts.client
	first := mustCreatePod(t, c, "default", testPod("p", nil))
	for i := range 10 {
		mustCreatePod(t, c, "default", testPod(fmt.Sprintf("q%d", i), nil))
	}
	// The cache records the creates a moment after they return: until it
	// has evicted first's, the watch replays (and ends after 1 s).
	var code int
	var body string
	waitFor(t, waitTimeout, "a watch from "+first.ResourceVersion+" to get 410", func() bool {
		code, body = ts.do(t, "GET", "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1&resourceVersion="+first.ResourceVersion, "", "")
		return strings.Contains(body, "ERROR")
	})
	if code != http.StatusOK || !strings.HasPrefix(body, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: `+first.ResourceVersion+` (`) ||
		!strings.HasSuffix(strings.TrimSpace(body), `"reason":"Expired","code":410}}`) {
		t.Errorf("raw watch from %s: %d %s, want 200 and one ERROR event", first.ResourceVersion, code, body)
	}
	t.Run("informer relists", func(t *testing.T) { informerRelistsOnExpired(ctx, t, c) })
}

// informerRelistsOnExpired runs an informer whose watches end every two
// seconds, pushes its resourceVersion out of the watch cache's history
// with writes elsewhere, and checks that it met a 410, listed again and
// still sees new pods.
func informerRelistsOnExpired(ctx context.Context, t *testing.T, c kubernetes.Interface) {
	var expired, relists atomic.Int32
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			relists.Add(1)
			return c.CoreV1().Pods("default").List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				relists.Add(1)
			}
			o.TimeoutSeconds = ptr.To[int64](2)
			w, err := c.CoreV1().Pods("default").Watch(ctx, o)
			if err != nil {
				return nil, err
			}
			return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
				// A periodic bookmark would move the informer's
				// resourceVersion on (as it does on a real cluster);
				// only the one ending the initial events gets through.
				if ev.Type == watch.Bookmark {
					m, err := meta.Accessor(ev.Object)
					return ev, err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
				}
				if ev.Type == watch.Error && apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
					expired.Add(1)
				}
				return ev, true
			}), nil
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("no sync")
	}
	before := relists.Load()
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 12 { // more than the history holds
		mustCreatePod(t, c, "elsewhere", testPod(fmt.Sprintf("x%d", i), nil))
	}
	waitFor(t, waitTimeout, "a 410 and a relist", func() bool { return expired.Load() > 0 && relists.Load() > before })
	mustCreatePod(t, c, "default", testPod("new", nil))
	waitFor(t, waitTimeout, "the informer to see the new pod", func() bool {
		_, ok, _ := inf.GetStore().GetByKey("default/new")
		return ok
	})
}

func compactTo(tb testing.TB, ts *testServer, rv string) {
	tb.Helper()
	rev, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ts.etcd.Compact(context.Background(), rev); err != nil {
		tb.Fatal(err)
	}
}
