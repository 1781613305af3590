package storage_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/waitfor"
	clientv3 "go.etcd.io/etcd/client/v3"
)

const (
	prefix           = "/registry/pods/"
	bookmarkInterval = 100 * time.Millisecond
)

func key(ns, name string) string { return prefix + ns + "/" + name }

type env struct {
	store  *storage.Store
	client *clientv3.Client
}

// newStore returns a store on a fresh etcd member, with its watch cache
// running (so watches use it whenever it holds what they need).
func newStore(t *testing.T) env {
	t.Helper()
	return newStoreWith(t, true)
}

func storeCodec() runtime.Codec {
	ser := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{})
	return runtime.NewCodec(runtime.WithVersionEncoder{Version: corev1.SchemeGroupVersion, Encoder: ser, ObjectTyper: scheme.Scheme}, ser)
}

// storeWithCodec returns a second store on e's etcd with its own codec and
// its watch cache running.
func storeWithCodec(t *testing.T, e env, codec runtime.Codec) *storage.Store {
	t.Helper()
	s, err := storage.New(storage.Config{
		Client:      e.client,
		Codec:       codec,
		Prefix:      prefix,
		NewFunc:     func() runtime.Object { return &corev1.Pod{} },
		NewListFunc: func() runtime.Object { return &corev1.PodList{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	for !storage.WatchCacheRunning(s) {
		time.Sleep(5 * time.Millisecond)
	}
	return s
}

func newStoreWith(t *testing.T, cache bool) env {
	t.Helper()
	return newStoreConfig(t, cache, storage.WindowConfig{})
}

// newStoreWithWindow is newStore with the watch cache's history sized by w.
func newStoreWithWindow(t *testing.T, w storage.WindowConfig) env {
	t.Helper()
	return newStoreConfig(t, true, w)
}

func newStoreConfig(t *testing.T, cache bool, w storage.WindowConfig) env {
	t.Helper()
	e := etcdtest.Start(t)
	s, err := storage.New(storage.Config{
		Client:      e.Client(),
		Codec:       storeCodec(),
		Prefix:      prefix,
		NewFunc:     func() runtime.Object { return &corev1.Pod{} },
		NewListFunc: func() runtime.Object { return &corev1.PodList{} },
		WatchCache:  w,

		BookmarkInterval: bookmarkInterval,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cache {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		deadline := time.Now().Add(waitTimeout)
		for !storage.WatchCacheRunning(s) {
			if time.Now().After(deadline) {
				t.Fatalf("watch cache not running after %v", waitTimeout)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return env{store: s, client: e.Client()}
}

func pod(ns, name string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

func podAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	p := obj.(*corev1.Pod)
	return labels.Set(p.Labels), fields.Set{
		"metadata.name":      p.Name,
		"metadata.namespace": p.Namespace,
		"spec.nodeName":      p.Spec.NodeName,
		"status.phase":       string(p.Status.Phase),
	}, nil
}

func mustCreate(t *testing.T, s *storage.Store, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := s.Create(context.Background(), key(p.Namespace, p.Name), p, storage.WriteOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", p.Name, err)
	}
	return out.(*corev1.Pod)
}

func rvOf(t *testing.T, obj runtime.Object) int64 {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", m.GetResourceVersion(), err)
	}
	return n
}

func TestCreateSetsRevisionAndRejectsDuplicates(t *testing.T) {
	e := newStore(t)
	ctx := context.Background()
	created := mustCreate(t, e.store, pod("default", "a", nil))
	resp, err := e.client.Get(ctx, key("default", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rvOf(t, created), resp.Kvs[0].ModRevision; got != want {
		t.Errorf("resourceVersion = %d, want the key's mod revision %d", got, want)
	}
	stored := string(resp.Kvs[0].Value)
	for _, want := range []string{`"kind":"Pod"`, `"apiVersion":"v1"`} {
		if !strings.Contains(stored, want) {
			t.Errorf("stored value %s lacks %s", stored, want)
		}
	}
	if strings.Contains(stored, "resourceVersion") {
		t.Errorf("stored value %s carries a resourceVersion; etcd's mod revision is the only one", stored)
	}
	_, err = e.store.Create(ctx, key("default", "a"), pod("default", "a", nil), storage.WriteOptions{})
	if !storage.IsExist(err) {
		t.Errorf("second create: err = %v, want a key-exists error", err)
	}
	p := pod("default", "b", nil)
	p.ResourceVersion = "5"
	if _, err := e.store.Create(ctx, key("default", "b"), p, storage.WriteOptions{}); err == nil {
		t.Error("create with a resourceVersion: err = nil, want an error")
	}
}

func TestGet(t *testing.T) {
	e := newStore(t)
	ctx := context.Background()
	created := mustCreate(t, e.store, pod("default", "a", nil))
	rv := rvOf(t, created)

	tests := []struct {
		name    string
		key     string
		rv      string
		wantErr func(error) bool
	}{
		{"latest", key("default", "a"), "", nil},
		{"any", key("default", "a"), "0", nil},
		{"not older than the current revision", key("default", "a"), strconv.FormatInt(rv, 10), nil},
		{"missing key", key("default", "nope"), "", storage.IsNotFound},
		{"future revision", key("default", "a"), strconv.FormatInt(rv+100, 10), isTooLargeRV},
		// Not an API error (upstream answers a get so with a 500).
		{"bad revision", key("default", "a"), "abc", func(err error) bool {
			_, isAPI := err.(apierrors.APIStatus)
			return err != nil && !isAPI && err.Error() == `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.store.Get(ctx, tt.key, storage.GetOptions{ResourceVersion: tt.rv})
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("err = %v, want a different kind of error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rvOf(t, got) != rv || got.(*corev1.Pod).Name != "a" {
				t.Errorf("got %s rv %d, want a rv %d", got.(*corev1.Pod).Name, rvOf(t, got), rv)
			}
		})
	}
}

func isTooLargeRV(err error) bool {
	return apierrors.IsTimeout(err) && apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

func TestGuaranteedUpdate(t *testing.T) {
	ctx := context.Background()

	t.Run("a change gets a new revision", func(t *testing.T) {
		e := newStore(t)
		created := mustCreate(t, e.store, pod("default", "a", nil))
		out, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
			cur.(*corev1.Pod).Labels = map[string]string{"x": "y"}
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rvOf(t, out) <= rvOf(t, created) {
			t.Errorf("rv after update %d, want > %d", rvOf(t, out), rvOf(t, created))
		}
	})

	t.Run("no change keeps the revision and sends no event", func(t *testing.T) {
		e := newStore(t)
		created := mustCreate(t, e.store, pod("default", "a", nil))
		w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: strconv.FormatInt(rvOf(t, created), 10)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		out, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rvOf(t, out) != rvOf(t, created) {
			t.Errorf("no-op update changed rv %d -> %d", rvOf(t, created), rvOf(t, out))
		}
		// A later real change must be the first event the watcher sees.
		mustCreate(t, e.store, pod("default", "b", nil))
		ev := nextEvent(t, w)
		if ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != "b" {
			t.Errorf("first event = %s %s, want ADDED b (the no-op update must not produce one)", ev.Type, ev.Object.(*corev1.Pod).Name)
		}
	})

	t.Run("retries on a concurrent write", func(t *testing.T) {
		e := newStore(t)
		mustCreate(t, e.store, pod("default", "a", nil))
		calls := 0
		out, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
			calls++
			if calls == 1 {
				// Another writer sneaks in between our read and our write.
				if _, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(c runtime.Object) (runtime.Object, error) {
					c.(*corev1.Pod).Labels = map[string]string{"other": "writer"}
					return c, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			p := cur.(*corev1.Pod)
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels["mine"] = "yes"
			return p, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 2 {
			t.Errorf("tryUpdate ran %d times, want 2 (one retry)", calls)
		}
		if l := out.(*corev1.Pod).Labels; l["other"] != "writer" || l["mine"] != "yes" {
			t.Errorf("labels = %v, want both writers' labels", l)
		}
	})

	t.Run("preconditions", func(t *testing.T) {
		e := newStore(t)
		mustCreate(t, e.store, pod("default", "a", nil))
		wrong := types.UID("other")
		_, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), &storage.Preconditions{UID: &wrong}, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) { return cur, nil })
		if !storage.IsInvalidObj(err) || err.Error() != "StorageError: invalid object, Code: 4, Key: "+key("default", "a")+", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-a" {
			t.Errorf("err = %v, want the upstream precondition message", err)
		}
	})

	t.Run("missing key", func(t *testing.T) {
		e := newStore(t)
		_, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) { return cur, nil })
		if !storage.IsNotFound(err) {
			t.Errorf("err = %v, want not found", err)
		}
		out, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, true, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
			return pod("default", "a", nil), nil
		})
		if err != nil || out.(*corev1.Pod).Name != "a" {
			t.Errorf("create through update: %v, %v", out, err)
		}
	})
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	mustCreate(t, e.store, pod("default", "a", nil))
	staleRV := "1"
	_, err := e.store.Delete(ctx, key("default", "a"), &storage.Preconditions{ResourceVersion: &staleRV}, nil, storage.WriteOptions{})
	if !storage.IsInvalidObj(err) {
		t.Fatalf("delete with a stale rv precondition: err = %v, want precondition failure", err)
	}
	refuse := errors.New("not now")
	if _, err := e.store.Delete(ctx, key("default", "a"), nil, func(runtime.Object) error { return refuse }, storage.WriteOptions{}); !errors.Is(err, refuse) {
		t.Fatalf("validateDeletion error = %v, want %v", err, refuse)
	}
	out, err := e.store.Delete(ctx, key("default", "a"), nil, nil, storage.WriteOptions{})
	if err != nil || out.(*corev1.Pod).Name != "a" {
		t.Fatalf("delete: %v %v", out, err)
	}
	if _, err := e.store.Get(ctx, key("default", "a"), storage.GetOptions{}); !storage.IsNotFound(err) {
		t.Errorf("get after delete: err = %v, want not found", err)
	}
	if _, err := e.store.Delete(ctx, key("default", "a"), nil, nil, storage.WriteOptions{}); !storage.IsNotFound(err) {
		t.Errorf("second delete: err = %v, want not found", err)
	}
}

func names(t *testing.T, list runtime.Object) []string {
	t.Helper()
	var out []string
	for _, p := range list.(*corev1.PodList).Items {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

func TestGetListSelectorsAndNamespaces(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	mustCreate(t, e.store, pod("default", "web-1", map[string]string{"app": "web"}))
	mustCreate(t, e.store, pod("default", "db-1", map[string]string{"app": "db"}))
	mustCreate(t, e.store, pod("defaultx", "web-2", map[string]string{"app": "web"}))

	tests := []struct {
		name  string
		key   string
		label string
		field string
		want  string
	}{
		{"one namespace", prefix + "default/", "", "", "[default/db-1 default/web-1]"},
		{"all namespaces", prefix, "", "", "[default/db-1 default/web-1 defaultx/web-2]"},
		{"label selector", prefix, "app=web", "", "[default/web-1 defaultx/web-2]"},
		{"field selector", prefix, "", "metadata.name=db-1", "[default/db-1]"},
		{"field not equal", prefix, "", "metadata.namespace!=default", "[defaultx/web-2]"},
		{"both", prefix, "app=web", "metadata.namespace=default", "[default/web-1]"},
		{"single key", key("default", "db-1"), "", "", "[default/db-1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pred := storage.Predicate{GetAttrs: podAttrs}
			var err error
			if pred.Label, err = labels.Parse(tt.label); err != nil {
				t.Fatal(err)
			}
			if pred.Field, err = fields.ParseSelector(tt.field); err != nil {
				t.Fatal(err)
			}
			list, err := e.store.GetList(ctx, tt.key, storage.ListOptions{Predicate: pred})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(names(t, list)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestGetListPaging(t *testing.T) {
	ctx := context.Background()
	for _, selector := range []string{"", "app=web"} {
		t.Run("selector="+selector, func(t *testing.T) {
			e := newStore(t)
			for i := 0; i < 7; i++ {
				mustCreate(t, e.store, pod("default", fmt.Sprintf("web-%d", i), map[string]string{"app": "web"}))
				mustCreate(t, e.store, pod("default", fmt.Sprintf("zz-%d", i), map[string]string{"app": "other"}))
			}
			sel, _ := labels.Parse(selector)
			var got []string
			var firstRV string
			token := ""
			pages := 0
			for {
				list, err := e.store.GetList(ctx, prefix, storage.ListOptions{Predicate: storage.Predicate{
					Label: sel, GetAttrs: podAttrs, Limit: 3, Continue: token,
				}})
				if err != nil {
					t.Fatal(err)
				}
				pl := list.(*corev1.PodList)
				if pages == 0 {
					firstRV = pl.ResourceVersion
					// A write between pages must not show up in later pages.
					mustCreate(t, e.store, pod("default", "web-late", map[string]string{"app": "web"}))
				} else if pl.ResourceVersion != firstRV {
					t.Errorf("page %d resourceVersion %s, want the first page's %s", pages, pl.ResourceVersion, firstRV)
				}
				if len(pl.Items) > 3 {
					t.Errorf("page %d has %d items, limit 3", pages, len(pl.Items))
				}
				if selector == "" && pl.Continue != "" {
					if pl.RemainingItemCount == nil {
						t.Errorf("page %d: no remainingItemCount without a selector", pages)
					}
				}
				if selector != "" && pl.RemainingItemCount != nil {
					t.Errorf("page %d: remainingItemCount %d with a selector, upstream leaves it unset", pages, *pl.RemainingItemCount)
				}
				got = append(got, names(t, list)...)
				pages++
				token = pl.Continue
				if token == "" {
					break
				}
			}
			want := 14
			if selector != "" {
				want = 7
			}
			if len(got) != want {
				t.Errorf("paged through %d items %v, want %d", len(got), got, want)
			}
			for _, n := range got {
				if n == "default/web-late" {
					t.Errorf("an object created after the first page appeared in the list")
				}
			}
		})
	}

	t.Run("remainingItemCount", func(t *testing.T) {
		e := newStore(t)
		for i := 0; i < 5; i++ {
			mustCreate(t, e.store, pod("default", fmt.Sprintf("p%d", i), nil))
		}
		list, err := e.store.GetList(ctx, prefix, storage.ListOptions{Predicate: storage.Predicate{Limit: 2}})
		if err != nil {
			t.Fatal(err)
		}
		pl := list.(*corev1.PodList)
		if pl.RemainingItemCount == nil || *pl.RemainingItemCount != 3 {
			t.Errorf("remainingItemCount = %v, want 3", pl.RemainingItemCount)
		}
	})

	t.Run("bad tokens", func(t *testing.T) {
		e := newStore(t)
		mustCreate(t, e.store, pod("default", "a", nil))
		for _, tok := range []string{"garbage!", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi8uLi9zZWNyZXRzLyJ9"} {
			_, err := e.store.GetList(ctx, prefix, storage.ListOptions{Predicate: storage.Predicate{Limit: 1, Continue: tok}})
			if !apierrors.IsBadRequest(err) {
				t.Errorf("token %q: err = %v, want 400", tok, err)
			}
		}
		_, err := e.store.GetList(ctx, prefix, storage.ListOptions{ResourceVersion: "5", Predicate: storage.Predicate{Limit: 1, Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0"}})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "specifying resource version is not allowed when using continue") {
			t.Errorf("continue with resourceVersion: err = %v, want upstream's 400", err)
		}
	})
}

func TestGetListResourceVersionSemantics(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	first := mustCreate(t, e.store, pod("default", "a", nil))
	second := mustCreate(t, e.store, pod("default", "b", nil))
	rv1, rv2 := rvOf(t, first), rvOf(t, second)

	list := func(rv string, match metav1.ResourceVersionMatch) ([]string, string, error) {
		l, err := e.store.GetList(ctx, prefix, storage.ListOptions{ResourceVersion: rv, ResourceVersionMatch: match})
		if err != nil {
			return nil, "", err
		}
		return names(t, l), l.(*corev1.PodList).ResourceVersion, nil
	}
	got, rv, err := list(strconv.FormatInt(rv1, 10), metav1.ResourceVersionMatchExact)
	if err != nil || fmt.Sprint(got) != "[default/a]" || rv != strconv.FormatInt(rv1, 10) {
		t.Errorf("Exact at rv1: %v rv=%s err=%v, want [default/a] at %d", got, rv, err, rv1)
	}
	got, rv, err = list(strconv.FormatInt(rv1, 10), metav1.ResourceVersionMatchNotOlderThan)
	if err != nil || len(got) != 2 || rv != strconv.FormatInt(rv2, 10) {
		t.Errorf("NotOlderThan rv1: %v rv=%s err=%v, want both at %d", got, rv, err, rv2)
	}
	if _, _, err = list(strconv.FormatInt(rv2+50, 10), metav1.ResourceVersionMatchNotOlderThan); !isTooLargeRV(err) {
		t.Errorf("NotOlderThan future: err = %v, want Too large resource version", err)
	}
	if _, _, err = list(strconv.FormatInt(rv2+50, 10), metav1.ResourceVersionMatchExact); !isTooLargeRV(err) {
		t.Errorf("Exact future: err = %v, want Too large resource version", err)
	}

	// Compact past rv1: an exact read there is gone.
	mustCreate(t, e.store, pod("default", "c", nil))
	if err := storage.Compact(ctx, e.client, rv2); err != nil {
		t.Fatal(err)
	}
	_, _, err = list(strconv.FormatInt(rv1, 10), metav1.ResourceVersionMatchExact)
	if !apierrors.IsResourceExpired(err) || !strings.Contains(err.Error(), "The resourceVersion for the provided list is too old.") {
		t.Errorf("Exact at compacted rv: err = %v, want 410 Expired", err)
	}
}

func TestContinueAfterCompaction(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	for i := 0; i < 4; i++ {
		mustCreate(t, e.store, pod("default", fmt.Sprintf("p%d", i), nil))
	}
	l, err := e.store.GetList(ctx, prefix, storage.ListOptions{Predicate: storage.Predicate{Limit: 2}})
	if err != nil {
		t.Fatal(err)
	}
	tok := l.(*corev1.PodList).Continue
	last := mustCreate(t, e.store, pod("default", "p9", nil))
	if err := storage.Compact(ctx, e.client, rvOf(t, last)); err != nil {
		t.Fatal(err)
	}
	_, err = e.store.GetList(ctx, prefix, storage.ListOptions{Predicate: storage.Predicate{Limit: 2, Continue: tok}})
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != 410 || se.ErrStatus.ListMeta.Continue == "" {
		t.Fatalf("err = %v, want 410 with a fresh continue token", err)
	}
	// The fresh token continues at the latest revision.
	l, err = e.store.GetList(ctx, prefix, storage.ListOptions{Predicate: storage.Predicate{Limit: 10, Continue: se.ErrStatus.ListMeta.Continue}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(t, l)); got != "[default/p2 default/p3 default/p9]" {
		t.Errorf("rest of the list = %s", got)
	}
}

func TestTTL(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	if _, err := e.store.Create(ctx, key("default", "ev"), pod("default", "ev", nil), storage.WriteOptions{TTL: 3600}); err != nil {
		t.Fatal(err)
	}
	resp, err := e.client.Get(ctx, key("default", "ev"))
	if err != nil {
		t.Fatal(err)
	}
	ttl, err := e.client.TimeToLive(ctx, clientv3.LeaseID(resp.Kvs[0].Lease))
	if err != nil {
		t.Fatal(err)
	}
	if ttl.TTL < 3600 {
		t.Errorf("lease TTL %d, want at least the requested 3600", ttl.TTL)
	}
}

// waitTimeout is the deadline of the package's waits for the store, its
// watch cache or a watch to reach a state: generous, so that only a hang
// reaches it, never a slow machine.
const waitTimeout = waitfor.Bound

// nextEvent waits for the next event with a deadline.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(waitTimeout):
		t.Fatalf("no watch event within %v", waitTimeout)
	}
	return watch.Event{}
}

func TestDryRun(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	dry := storage.WriteOptions{DryRun: true}
	if _, err := e.store.Create(ctx, key("default", "a"), pod("default", "a", nil), dry); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Get(ctx, key("default", "a"), storage.GetOptions{}); !storage.IsNotFound(err) {
		t.Fatalf("dry-run create stored the object (get err = %v)", err)
	}
	created := mustCreate(t, e.store, pod("default", "a", nil))
	if _, err := e.store.Create(ctx, key("default", "a"), pod("default", "a", nil), dry); !storage.IsExist(err) {
		t.Errorf("dry-run create of an existing key: err = %v, want key exists", err)
	}
	out, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, dry, func(cur runtime.Object) (runtime.Object, error) {
		cur.(*corev1.Pod).Labels = map[string]string{"dry": "run"}
		return cur, nil
	})
	if err != nil || out.(*corev1.Pod).Labels["dry"] != "run" {
		t.Fatalf("dry-run update: %v %v, want the computed result", out, err)
	}
	if _, err := e.store.Delete(ctx, key("default", "a"), nil, nil, dry); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.Get(ctx, key("default", "a"), storage.GetOptions{})
	if err != nil {
		t.Fatalf("dry-run delete removed the object: %v", err)
	}
	if got.(*corev1.Pod).ResourceVersion != created.ResourceVersion || got.(*corev1.Pod).Labels != nil {
		t.Errorf("after dry runs: rv %s labels %v, want the created object unchanged (rv %s)", got.(*corev1.Pod).ResourceVersion, got.(*corev1.Pod).Labels, created.ResourceVersion)
	}
}
