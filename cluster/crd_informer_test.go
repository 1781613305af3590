package cluster_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"

	"github.com/kubesim/kubesim/internal/pki"
)

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// roundTripper adapts a func to http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// mustCreateCRD creates cluster/testdata/crd.yaml with the dynamic
// client and waits until it is established.
func mustCreateCRD(tb testing.TB, dyn dynamic.Interface) {
	tb.Helper()
	data, err := os.ReadFile("testdata/crd.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		tb.Fatal(err)
	}
	crds := dyn.Resource(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))
	ctx := context.Background()
	if _, err := crds.Create(ctx, u, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("create CRD: %v", err)
	}
	eventually(tb, "CRD established", func() (bool, string) {
		got, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			m := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, ""
			}
		}
		return false, "conditions " + strings.TrimSpace(yamlOf(conds))
	})
}

func yamlOf(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}

// TestDynamicInformerOnWidgets runs a client-go dynamic informer with its
// default settings on widgets: it syncs through WatchList (a watch with
// sendInitialEvents=true, no list) and then sees a widget added, changed
// and deleted.
func TestDynamicInformerOnWidgets(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	cfg, err := c.RESTConfigAs(pki.AdminUser)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	mustCreateCRD(t, dyn)
	widgets := dyn.Resource(widgetsGVR).Namespace("default")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := widgets.Create(ctx, widget("before", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	var watchLists, lists atomic.Int32
	icfg := rest.CopyConfig(cfg)
	icfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if q := r.URL.Query(); strings.HasSuffix(r.URL.Path, "/widgets") {
				if q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true" {
					watchLists.Add(1)
				} else if q.Get("watch") != "true" {
					lists.Add(1)
				}
			}
			return rt.RoundTrip(r)
		})
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dynamic.NewForConfigOrDie(icfg), 0)
	inf := factory.ForResource(widgetsGVR).Informer()
	var mu sync.Mutex
	var events []string
	record := func(what string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		mu.Lock()
		events = append(events, what+" "+obj.(*unstructured.Unstructured).GetName())
		mu.Unlock()
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { record("add", obj) },
		UpdateFunc: func(_, obj any) { record("update", obj) },
		DeleteFunc: func(obj any) { record("delete", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() {
		cancel() // the informers stop; Shutdown waits for them
		factory.Shutdown()
	}()
	syncCtx, syncCancel := context.WithTimeout(ctx, waitTimeout)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync within %v", waitTimeout)
	}
	if watchLists.Load() == 0 || lists.Load() != 0 {
		t.Errorf("informer made %d WatchList and %d list requests, want it to sync through WatchList only", watchLists.Load(), lists.Load())
	}

	if _, err := widgets.Create(ctx, widget("after", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Patch(ctx, "after", types.MergePatchType, []byte(`{"spec":{"size":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := widgets.Delete(ctx, "before", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"add before", "add after", "update after", "delete before"}
	eventually(t, "the informer's events", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Equal(events, want), strings.Join(events, ", ")
	})
}

// widget is a Widget of size in default.
func widget(name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"size": size},
	}}
}
