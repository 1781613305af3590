package storage_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// countingCodec counts decodes.
type countingCodec struct {
	runtime.Codec
	decodes atomic.Int64
}

func (c *countingCodec) Decode(data []byte, gvk *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	c.decodes.Add(1)
	return c.Codec.Decode(data, gvk, into)
}

// Ten watchers of the same store cost one decoding per change, not ten:
// they share the watch cache's.
func TestWatchCacheDecodesOnce(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	counting := &countingCodec{Codec: storeCodec()}
	s := storeWithCodec(t, e, counting)

	var ws []watch.Interface
	start, err := s.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		w, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ws = append(ws, w)
	}
	counting.decodes.Store(0)
	const creates = 20
	for i := range creates {
		if _, err := s.Create(ctx, key("default", fmt.Sprintf("p%d", i)), pod("default", fmt.Sprintf("p%d", i), nil), storage.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range ws {
		for range creates {
			if ev := nextEvent(t, w); ev.Type != watch.Added {
				t.Fatalf("got %s", ev.Type)
			}
		}
	}
	if got := counting.decodes.Load(); got != creates {
		t.Errorf("%d decodes for %d creates seen by 10 watchers, want %d (once per change)", got, creates, creates)
	}
}

// A watcher whose reader stops reading is dropped by the cache once it is
// too far behind: its stream ends (the client then watches again); the
// others carry on.
func TestWatchCacheDropsASlowWatcher(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	// Room for bursts a reading watcher meets, far less than the changes
	// below, which a watcher that never reads cannot hold.
	storage.SetSubscriptionBuffer(e.store, 64)
	start, _ := e.store.CurrentRevision(ctx)
	slow, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Stop()
	fast, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Stop()
	const creates = 300 // more than the result buffer (100) and the subscription's (64) together
	got := make(chan int)
	go func() {
		n := 0
		for range fast.ResultChan() {
			n++
			if n == creates {
				break
			}
		}
		got <- n
	}()
	for i := range creates {
		mustCreate(t, e.store, pod("default", fmt.Sprintf("p%03d", i), nil))
	}
	select {
	case n := <-got:
		if n != creates {
			t.Errorf("fast watcher saw %d of %d", n, creates)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("fast watcher did not see every change")
	}
	n := 0
	deadline := time.After(20 * time.Second)
	for {
		select {
		case _, ok := <-slow.ResultChan():
			if !ok {
				if n >= creates {
					t.Errorf("slow watcher saw all %d changes, want it dropped before", n)
				}
				return
			}
			n++
		case <-deadline:
			t.Fatalf("slow watcher's stream did not end (read %d)", n)
		}
	}
}

// A watch from before what the cache holds is served from etcd.
func TestWatchOlderThanTheCache(t *testing.T) {
	ctx := context.Background()
	e := newStoreWith(t, false)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	b := mustCreate(t, e.store, pod("default", "b", nil))
	// The cache starts now, after a and b.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { e.store.Run(cctx); close(done) }()
	defer func() { cancel(); <-done }()
	for !storage.WatchCacheRunning(e.store) {
		time.Sleep(5 * time.Millisecond)
	}
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got, want := describe(nextEvent(t, w)), "ADDED b "+b.ResourceVersion; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c := mustCreate(t, e.store, pod("default", "c", nil))
	if got, want := describe(nextEvent(t, w)), "ADDED c "+c.ResourceVersion; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
