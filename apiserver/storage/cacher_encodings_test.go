package storage_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// Each form is made once however many watchers ask for it at the same
// time, and every one gets the same bytes; another form is made apart; a
// nil Encodings makes the form on every call.
func TestEncodingsMakeEachFormOnce(t *testing.T) {
	var e storage.Encodings
	var made atomic.Int64
	encode := func(form string) func() ([]byte, error) {
		return func() ([]byte, error) {
			made.Add(1)
			return []byte(form), nil
		}
	}
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = e.Get("json", encode("json"))
		}()
	}
	wg.Wait()
	for i, b := range got {
		if string(b) != "json" || &b[0] != &got[0][0] {
			t.Errorf("watcher %d got %q at %p, want the one json frame at %p", i, b, b, got[0])
		}
	}
	if pb, _ := e.Get("protobuf", encode("protobuf")); string(pb) != "protobuf" {
		t.Errorf("protobuf form: %q", pb)
	}
	if n := made.Load(); n != 2 {
		t.Errorf("made %d encodings, want 2 (one per form)", n)
	}
	var none *storage.Encodings
	none.Get("json", encode("json"))
	none.Get("json", encode("json"))
	if n := made.Load(); n != 4 {
		t.Errorf("a nil Encodings made %d, want 2 more", n-2)
	}
}

// Watchers of the watch cache that show the same change as the same
// event get the same Encodings; one whose selector turns the change into
// another event (ADDED when the pod starts matching) gets that event's.
// The initial state has none.
func TestWatchersShareTheEncodingsOfAChange(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	events := func(opts storage.ListOptions) <-chan storage.Event {
		w, err := e.store.Watch(ctx, prefix, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w.(storage.EventSource).Events()
	}
	next := func(ch <-chan storage.Event) storage.Event {
		t.Helper()
		select {
		case ev := <-ch:
			return ev
		case <-time.After(waitTimeout):
			t.Fatalf("no event within %v", waitTimeout)
		}
		return storage.Event{}
	}
	from := storage.ListOptions{ResourceVersion: a.ResourceVersion}
	one, two := events(from), events(from)
	phase := events(storage.ListOptions{ResourceVersion: a.ResourceVersion, Predicate: storage.Predicate{
		Label: labels.SelectorFromSet(labels.Set{"phase": "running"}), GetAttrs: podAttrs}})
	initial := events(storage.ListOptions{})

	if ev := next(initial); ev.Type != watch.Added || ev.Encodings != nil {
		t.Errorf("initial state: %s with encodings %p, want ADDED without", ev.Type, ev.Encodings)
	}
	_, err := e.store.GuaranteedUpdate(ctx, key("default", "a"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod)
		p.Labels = map[string]string{"phase": "running"}
		return p, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e1, e2, e3 := next(one), next(two), next(phase)
	if e1.Type != watch.Modified || e2.Type != watch.Modified || e3.Type != watch.Added {
		t.Fatalf("events %s %s %s, want MODIFIED MODIFIED ADDED", e1.Type, e2.Type, e3.Type)
	}
	if e1.Encodings == nil || e1.Encodings != e2.Encodings {
		t.Errorf("two MODIFIED of one change: encodings %p and %p, want the same", e1.Encodings, e2.Encodings)
	}
	if e3.Encodings == nil || e3.Encodings == e1.Encodings {
		t.Errorf("the ADDED of the change: encodings %p, want its own (the MODIFIED's are %p)", e3.Encodings, e1.Encodings)
	}
}

// The history keeps a change, not its encodings: a watcher that replays
// the change from the history gets no Encodings and encodes it itself,
// as kube-apiserver's cacher keeps an event's serializations only while
// it dispatches the event. Watchers it was dispatched to share theirs.
func TestHistoryKeepsNoEncodings(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	a := mustCreate(t, e.store, pod("default", "a", nil))
	w, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	dispatched := w.(storage.EventSource).Events()
	b := mustCreate(t, e.store, pod("default", "b", nil))
	select {
	case ev := <-dispatched:
		if ev.Encodings == nil {
			t.Errorf("dispatched %s: no encodings, want the change's shared ones", ev.Type)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("no event within %v", waitTimeout)
	}
	w2, err := e.store.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w2.Stop)
	select {
	case ev := <-w2.(storage.EventSource).Events():
		if ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != b.Name {
			t.Fatalf("replayed %s of %v, want ADDED of %s", ev.Type, ev.Object, b.Name)
		}
		if ev.Encodings != nil {
			t.Errorf("replayed from the history: encodings %p, want none", ev.Encodings)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("no event within %v", waitTimeout)
	}
}
