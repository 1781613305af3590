package storage_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// newIndexedStore is a store of pods whose watch cache indexes watchers
// by spec.nodeName, as the pods registry's, with the cache running.
func newIndexedStore(t *testing.T) *storage.Store {
	t.Helper()
	s, err := storage.New(storage.Config{
		Client:      etcdtest.Start(t).Client(),
		Codec:       storeCodec(),
		Prefix:      prefix,
		NewFunc:     func() runtime.Object { return &corev1.Pod{} },
		NewListFunc: func() runtime.Object { return &corev1.PodList{} },
		WatchIndex: &storage.WatchIndex{Field: "spec.nodeName", Value: func(obj runtime.Object) string {
			return obj.(*corev1.Pod).Spec.NodeName
		}},
		BookmarkInterval: bookmarkInterval,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, waitTimeout)
	defer wcancel()
	if err := s.WaitForWatchCache(wctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func bind(t *testing.T, s *storage.Store, name, node string) {
	t.Helper()
	_, err := s.GuaranteedUpdate(context.Background(), key("default", name), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		cur.(*corev1.Pod).Spec.NodeName = node
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func podOn(name, node string) *corev1.Pod {
	p := pod("default", name, nil)
	p.Spec.NodeName = node
	return p
}

// nextChange is the next event of w that is not a BOOKMARK.
func nextChange(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	for {
		if ev := nextEvent(t, w); ev.Type != watch.Bookmark {
			return ev
		}
	}
}

// A watcher that pins spec.nodeName is handed only the changes of pods
// whose new or old state is on its node: binding a pod to it is its
// ADDED, the pod's deletion its DELETED; the changes of the pods of other
// nodes never reach its selector (its GetAttrs is not called for them).
// Meanwhile a watcher of every pod sees them all.
func TestWatchCacheIndexesByNodeName(t *testing.T) {
	ctx := context.Background()
	s := newIndexedStore(t)
	start, err := s.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var looked atomic.Int64
	counting := func(obj runtime.Object) (labels.Set, fields.Set, error) {
		looked.Add(1)
		return podAttrs(obj)
	}
	rv := fmt.Sprint(start)
	kubelet, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: rv, Predicate: storage.Predicate{
		Field: fields.OneTermEqualSelector("spec.nodeName", "node-a"), GetAttrs: counting}})
	if err != nil {
		t.Fatal(err)
	}
	defer kubelet.Stop()
	all, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Stop()
	// A watcher subscribes in its own goroutine: one that comes after
	// the writes replays them from the history, through its selector.
	// The marker's ADDED shows the kubelet's watcher is live.
	mustCreate(t, s, podOn("m", "node-a"))
	if got := typeAndName(nextChange(t, kubelet)); got != "ADDED m" {
		t.Fatalf("kubelet's watch: %s, want ADDED m", got)
	}
	looked.Store(0)

	for i := range 5 {
		mustCreate(t, s, podOn(fmt.Sprintf("b%d", i), "node-b"))
	}
	mustCreate(t, s, pod("default", "p", nil))
	bind(t, s, "p", "node-a")
	setPhase(t, s, "p", corev1.PodRunning)
	if _, err := s.Delete(ctx, key("default", "p"), nil, nil, storage.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ADDED p", "MODIFIED p", "DELETED p"} {
		if got := typeAndName(nextChange(t, kubelet)); got != want {
			t.Errorf("kubelet's watch: %s, want %s", got, want)
		}
	}
	// Its selector looked at p's states only: new and old of the bind and
	// of the update, the last of the delete.
	if got := looked.Load(); got > 5 {
		t.Errorf("the kubelet's selector looked at %d objects, want at most the 5 of p on its node", got)
	}
	wantAll := []string{"ADDED m", "ADDED b0", "ADDED b1", "ADDED b2", "ADDED b3", "ADDED b4", "ADDED p", "MODIFIED p", "MODIFIED p", "DELETED p"}
	for i, want := range wantAll {
		if got := typeAndName(nextChange(t, all)); got != want {
			t.Errorf("event %d of the watch of every pod: %s, want %s", i, got, want)
		}
	}
}

func typeAndName(ev watch.Event) string {
	if p, ok := ev.Object.(*corev1.Pod); ok {
		return fmt.Sprintf("%s %s", ev.Type, p.Name)
	}
	return describe(ev)
}

// An indexed watcher's bookmarks still move on with the changes it is
// not handed, while other nodes' pods keep changing (etcd then sends the
// cache no progress of its own: its watch is never idle): the cache tells
// the watcher the revision it reached.
func TestIndexedWatcherBookmarksMoveOn(t *testing.T) {
	ctx := context.Background()
	s := newIndexedStore(t)
	start, _ := s.CurrentRevision(ctx)
	w, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start), AllowWatchBookmarks: true,
		Predicate: storage.Predicate{Field: fields.OneTermEqualSelector("spec.nodeName", "node-a"), GetAttrs: podAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	first := rvOf(t, mustCreate(t, s, podOn("b0", "node-b")))
	deadline := time.After(waitTimeout)
	for i := 1; ; i++ {
		// Less than etcd's progress period between two changes.
		mustCreate(t, s, podOn(fmt.Sprintf("b%d", i), "node-b"))
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			if ev.Type != watch.Bookmark {
				t.Fatalf("kubelet's watch: %s, want only bookmarks", describe(ev))
			}
			if rvOf(t, ev.Object) >= first {
				return
			}
		case <-time.After(etcdtest.ProgressNotifyInterval / 4):
		case <-deadline:
			t.Fatalf("no bookmark at or after %d, a change of another node", first)
		}
	}
}
