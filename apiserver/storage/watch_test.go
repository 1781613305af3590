package storage_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// describe renders an event as "TYPE name rv".
func describe(ev watch.Event) string {
	switch o := ev.Object.(type) {
	case *corev1.Pod:
		return fmt.Sprintf("%s %s %s", ev.Type, o.Name, o.ResourceVersion)
	case *metav1.Status:
		return fmt.Sprintf("%s %d %s", ev.Type, o.Code, o.Reason)
	}
	return fmt.Sprintf("%s %T", ev.Type, ev.Object)
}

func setPhase(t *testing.T, s *storage.Store, name string, phase corev1.PodPhase) int64 {
	t.Helper()
	out, err := s.GuaranteedUpdate(context.Background(), key("default", name), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		cur.(*corev1.Pod).Status.Phase = phase
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rvOf(t, out)
}

func TestWatchFromResourceVersion(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	rvA := rvOf(t, a)
	rvMod := setPhase(t, e.store, "a", corev1.PodRunning)
	b := mustCreate(t, e.store, pod("default", "b", nil))
	del, err := e.store.Delete(ctx, key("default", "a"), nil, nil, storage.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = del
	resp, _ := e.client.Get(ctx, "x")
	rvDel := resp.Header.Revision

	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: strconv.FormatInt(rvA, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	want := []string{
		fmt.Sprintf("MODIFIED a %d", rvMod),
		fmt.Sprintf("ADDED b %s", b.ResourceVersion),
		fmt.Sprintf("DELETED a %d", rvDel),
	}
	for i, wantEv := range want {
		if got := describe(nextEvent(t, w)); got != wantEv {
			t.Errorf("event %d = %q, want %q", i, got, wantEv)
		}
	}
}

func TestWatchInitialState(t *testing.T) {
	ctx := context.Background()
	for _, rv := range []string{"", "0"} {
		t.Run("rv="+rv, func(t *testing.T) {
			e := newStore(t)
			a := mustCreate(t, e.store, pod("default", "a", nil))
			b := mustCreate(t, e.store, pod("default", "b", nil))
			w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: rv})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if got, want := describe(nextEvent(t, w)), "ADDED a "+a.ResourceVersion; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if got, want := describe(nextEvent(t, w)), "ADDED b "+b.ResourceVersion; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			rvMod := setPhase(t, e.store, "b", corev1.PodRunning)
			if got, want := describe(nextEvent(t, w)), fmt.Sprintf("MODIFIED b %d", rvMod); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestWatchSendInitialEvents(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	mustCreate(t, e.store, pod("default", "a", nil))
	b := mustCreate(t, e.store, pod("default", "b", nil))

	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{
		SendInitialEvents:    ptr.To(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, name := range []string{"a", "b"} {
		if ev := nextEvent(t, w); ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != name {
			t.Fatalf("got %s, want ADDED %s", describe(ev), name)
		}
	}
	ev := nextEvent(t, w)
	p, _ := ev.Object.(*corev1.Pod)
	if ev.Type != watch.Bookmark || p == nil || p.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
		t.Fatalf("got %s %v, want a BOOKMARK annotated %s", describe(ev), p, metav1.InitialEventsAnnotationKey)
	}
	if rvOf(t, p) < rvOf(t, b) {
		t.Errorf("bookmark rv %s older than the last object %s", p.ResourceVersion, b.ResourceVersion)
	}

	t.Run("future resourceVersion", func(t *testing.T) {
		_, err := e.store.Watch(ctx, prefix, storage.ListOptions{
			ResourceVersion: "100000", SendInitialEvents: ptr.To(true),
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
		})
		if !isTooLargeRV(err) {
			t.Errorf("err = %v, want Too large resource version", err)
		}
	})

	t.Run("sendInitialEvents=false starts now", func(t *testing.T) {
		w, err := e.store.Watch(ctx, prefix, storage.ListOptions{SendInitialEvents: ptr.To(false), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		c := mustCreate(t, e.store, pod("default", "c", nil))
		if got, want := describe(nextEvent(t, w)), "ADDED c "+c.ResourceVersion; got != want {
			t.Errorf("got %q, want %q (no initial events)", got, want)
		}
	})
}

func TestWatchSelectorTransitions(t *testing.T) {
	// "should observe an object deletion if it stops meeting the
	// requirements of the selector", at the storage level.
	ctx := context.Background()
	e := newStore(t)
	c := mustCreate(t, e.store, pod("default", "a", nil))
	sel := fields.OneTermEqualSelector("status.phase", "Running")
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: c.ResourceVersion, Predicate: storage.Predicate{Field: sel, GetAttrs: podAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rvRun := setPhase(t, e.store, "a", corev1.PodRunning)
	rvMod, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		cur.(*corev1.Pod).Labels = map[string]string{"still": "running"}
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rvDone := setPhase(t, e.store, "a", corev1.PodSucceeded)
	want := []string{
		fmt.Sprintf("ADDED a %d", rvRun),
		fmt.Sprintf("MODIFIED a %s", rvMod.(*corev1.Pod).ResourceVersion),
		fmt.Sprintf("DELETED a %d", rvDone),
	}
	for i, wantEv := range want {
		ev := nextEvent(t, w)
		if got := describe(ev); got != wantEv {
			t.Errorf("event %d = %q, want %q", i, got, wantEv)
		}
		if ev.Type == watch.Deleted && ev.Object.(*corev1.Pod).Status.Phase != corev1.PodRunning {
			t.Errorf("DELETED carries phase %s, want the last matching state (Running)", ev.Object.(*corev1.Pod).Status.Phase)
		}
	}
}

// Without the watch cache (kube-apiserver's --watch-cache=false), etcd
// serves the watch: a compacted revision ends it with 410 Expired and
// etcd3 storage's message.
func TestWatchCompacted(t *testing.T) {
	ctx := context.Background()
	e := newStoreWith(t, false)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	setPhase(t, e.store, "a", corev1.PodRunning)
	last := setPhase(t, e.store, "a", corev1.PodSucceeded)
	// History before the last write is gone, the change right after a with it.
	if err := storage.Compact(ctx, e.client, last); err != nil {
		t.Fatal(err)
	}
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatalf("watch at a compacted rv must start (HTTP 200) and then fail: %v", err)
	}
	defer w.Stop()
	ev := nextEvent(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("got %s, want ERROR 410 Expired", describe(ev))
	}
	if want := "The resourceVersion for the provided watch is too old."; st.Message != want {
		t.Errorf("message %q, want %q", st.Message, want)
	}
	if _, open := <-w.ResultChan(); open {
		t.Error("watch still open after the ERROR event")
	}
	if !apierrors.IsResourceExpired(apierrors.FromObject(st)) {
		t.Error("client-go would not see this as expired")
	}
}

func TestWatchBookmarks(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := nextEvent(t, w)
	if ev.Type != watch.Bookmark || rvOf(t, ev.Object) < rvOf(t, a) {
		t.Fatalf("got %s, want a BOOKMARK at or after %s", describe(ev), a.ResourceVersion)
	}

	// Without allowWatchBookmarks, no bookmark arrives; the next event is a change.
	w2, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	time.Sleep(3 * bookmarkInterval) // three bookmark periods pass
	b := mustCreate(t, e.store, pod("default", "b", nil))
	if got, want := describe(nextEvent(t, w2)), "ADDED b "+b.ResourceVersion; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	// A change the selector hides still moves the bookmark forward.
	sel := labels.SelectorFromSet(labels.Set{"app": "web"})
	ws, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion, AllowWatchBookmarks: true, Predicate: storage.Predicate{Label: sel, GetAttrs: podAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Stop()
	hidden := mustCreate(t, e.store, pod("default", "hidden", map[string]string{"app": "db"}))
	deadline := time.Now().Add(waitTimeout)
	for {
		ev := nextEvent(t, ws)
		if ev.Type != watch.Bookmark {
			t.Fatalf("got %s, want only bookmarks", describe(ev))
		}
		if rvOf(t, ev.Object) >= rvOf(t, hidden) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bookmarks stay at %d, want them to reach %s", rvOf(t, ev.Object), hidden.ResourceVersion)
		}
	}
}

func TestWatchSingleKey(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	w, err := e.store.Watch(ctx, key("default", "mysql-0"), storage.ListOptions{ResourceVersion: ""})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustCreate(t, e.store, pod("default", "mysql-1", nil))
	m := mustCreate(t, e.store, pod("default", "mysql-0", nil))
	if got, want := describe(nextEvent(t, w)), "ADDED mysql-0 "+m.ResourceVersion; got != want {
		t.Errorf("got %q, want %q (mysql-1 is another key)", got, want)
	}
}

// TestConcurrentWatchesSameOrder is upstream's conformance test "should
// receive events on concurrent watches in same order". The watchers read
// while the writes happen, as the conformance test's do: a watcher that
// read nothing until the end would hold more than its buffers and be
// dropped by the watch cache (TestWatchCacheDropsASlowWatcher). On a
// starved machine even a reading watcher can fall behind and be dropped;
// it then watches again from the last resourceVersion it read, as
// client-go's RetryWatcher (which the conformance test uses) does, and
// the order must still be the same.
func TestConcurrentWatchesSameOrder(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	start, err := e.store.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const watchers, writes = 4, 40
	seen := make([]chan []string, watchers)
	errs := make(chan error, watchers)
	for i := range watchers {
		w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: strconv.FormatInt(start, 10)})
		if err != nil {
			t.Fatal(err)
		}
		seen[i] = make(chan []string, 1)
		go func() {
			got, err := readResuming(ctx, e.store, w, start, writes)
			if err != nil {
				errs <- err
			}
			seen[i] <- got
		}()
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < writes/4; i++ {
				if _, err := e.store.Create(ctx, key("default", fmt.Sprintf("p-%d-%d", g, i)), pod("default", fmt.Sprintf("p-%d-%d", g, i), nil), storage.WriteOptions{}); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	var first []string
	for i := range seen {
		var got []string
		select {
		case got = <-seen[i]:
		case <-time.After(waitTimeout):
			t.Fatalf("watcher %d: no %d events", i, writes)
		}
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		if i == 0 {
			first = got
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(first) {
			t.Errorf("watcher %d saw %v, watcher 0 saw %v", i, got, first)
		}
	}
}

// readResuming reads n events starting with w, which watches from rev;
// when a stream ends early it watches again from the resourceVersion of
// the last event read, as client-go's reflector does.
func readResuming(ctx context.Context, s *storage.Store, w watch.Interface, rev int64, n int) ([]string, error) {
	var got []string
	for {
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				w.Stop()
				return got, fmt.Errorf("watch error after %v: %v", got, ev.Object)
			}
			got = append(got, describe(ev))
			if rv, err := strconv.ParseInt(ev.Object.(*corev1.Pod).ResourceVersion, 10, 64); err == nil {
				rev = rv
			}
			if len(got) == n {
				w.Stop()
				return got, nil
			}
		}
		var err error
		if w, err = s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: strconv.FormatInt(rev, 10)}); err != nil {
			return got, fmt.Errorf("watching again from %d after %v: %v", rev, got, err)
		}
	}
}

func TestWatchStop(t *testing.T) {
	e := newStore(t)
	w, err := e.store.Watch(context.Background(), prefix, storage.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	w.Stop()
	select {
	case _, open := <-w.ResultChan():
		if open {
			t.Error("event after Stop")
		}
	case <-time.After(waitTimeout):
		t.Error("result channel not closed after Stop")
	}
}
