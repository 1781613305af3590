package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	const creates = 300 // more than its two buffers (64 each) together
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
	case <-time.After(waitTimeout):
		t.Fatal("fast watcher did not see every change")
	}
	n := 0
	deadline := time.After(waitTimeout)
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

// A watch from before the cache started gets 410 Expired from the cache,
// "too old resource version: X (Y)" with Y the revision the cache started
// at, as kube-apiserver's watch cache answers (after a restart of the API
// server, say), although etcd still has that history; a watch from Y on
// is served.
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
	start, err := e.store.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatalf("a watch from before the cache must start (HTTP 200) and then fail: %v", err)
	}
	defer w.Stop()
	wantExpired(t, w, fmt.Sprintf("too old resource version: %s (%d)", a.ResourceVersion, start))

	w2, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: b.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	c := mustCreate(t, e.store, pod("default", "c", nil))
	if got, want := describe(nextEvent(t, w2)), "ADDED c "+c.ResourceVersion; got != want {
		t.Errorf("watch from %s (the cache's start): got %q, want %q", b.ResourceVersion, got, want)
	}
}

// wantExpired reads one ERROR event holding 410 Expired with message msg,
// and then the end of the stream.
func wantExpired(t *testing.T, w watch.Interface, msg string) {
	t.Helper()
	ev := nextEvent(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("got %s, want ERROR 410 Expired", describe(ev))
	}
	if st.Message != msg {
		t.Errorf("message %q, want %q", st.Message, msg)
	}
	if _, open := <-w.ResultChan(); open {
		t.Error("watch still open after the ERROR event")
	}
}

// Once the cache has evicted changes, a watch can start from just before
// the oldest change it keeps, not earlier.
func TestWatchCacheWindow(t *testing.T) {
	ctx := context.Background()
	e := newStoreWithWindow(t, storage.WindowConfig{LowerBound: 3, UpperBound: 3})
	var rvs []string
	for i := range 5 {
		rvs = append(rvs, mustCreate(t, e.store, pod("default", fmt.Sprintf("p%d", i), nil)).ResourceVersion)
	}
	if !storage.WaitForWatchCache(e.store, mustInt(t, rvs[4])) {
		t.Fatal("the watch cache did not see the last create")
	}
	// Kept: p2, p3, p4. Oldest servable: the revision before p2's.
	oldest := mustInt(t, rvs[2]) - 1
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: rvs[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	wantExpired(t, w, fmt.Sprintf("too old resource version: %s (%d)", rvs[0], oldest))

	w2, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(oldest)})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	for i := 2; i < 5; i++ {
		if got, want := describe(nextEvent(t, w2)), fmt.Sprintf("ADDED p%d %s", i, rvs[i]); got != want {
			t.Errorf("watch from %d: got %q, want %q", oldest, got, want)
		}
	}
}

// The cache's history does not depend on etcd's: after a compaction, a
// watch from a revision the cache still holds is replayed from the cache,
// as kube-apiserver does.
func TestWatchCacheOutlivesCompaction(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	setPhase(t, e.store, "a", corev1.PodRunning)
	last := setPhase(t, e.store, "a", corev1.PodSucceeded)
	if err := storage.Compact(ctx, e.client, last); err != nil {
		t.Fatal(err)
	}
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, want := range []string{"MODIFIED a", "MODIFIED a " + fmt.Sprint(last)} {
		if got := describe(nextEvent(t, w)); !strings.HasPrefix(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A watcher that reads nothing is terminated once both its buffers are
// full, and its observer is told the figures: the buffer full, the
// revision of the last change it took and of the one it had no room for;
// the events already made still reach the reader, then the stream ends.
func TestWatchCacheReportsTheTermination(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	start, _ := e.store.CurrentRevision(ctx)
	got := make(chan storage.WatcherTerminated, 1)
	wctx := storage.WithWatcherTerminated(ctx, func(t storage.WatcherTerminated) { got <- t })
	w, err := e.store.Watch(wctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var revs []int64
	var term storage.WatcherTerminated
	for i := 0; ; i++ {
		p := mustCreate(t, e.store, pod("default", fmt.Sprintf("p%03d", i), nil))
		revs = append(revs, mustInt(t, p.ResourceVersion))
		select {
		case term = <-got:
		default:
			if i < 200 {
				continue
			}
			t.Fatal("200 changes and the watcher that reads nothing is still fed")
		}
		break
	}
	if term.BufferSize != 10 || term.Queued != term.BufferSize || term.ResultQueued != term.ResultSize {
		t.Errorf("buffer %d of %d, result %d of %d: want both full, the buffer 10 (the rule for the default history)",
			term.Queued, term.BufferSize, term.ResultQueued, term.ResultSize)
	}
	// The cache may tell after a create or two more.
	at := slices.Index(revs, term.GaveUpAt)
	if at < 1 || term.LastQueued != revs[at-1] {
		t.Errorf("last queued %d, gave up at %d; want two creates in a row of %v", term.LastQueued, term.GaveUpAt, revs)
	}
	n := 0
	for range w.ResultChan() {
		n++
	}
	if n < term.ResultQueued || int64(n) >= int64(len(revs)) {
		t.Errorf("read %d events before the end, want at least the %d made and fewer than the %d changes", n, term.ResultQueued, len(revs))
	}
}
