package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// runStore starts a store on e's etcd with codec and kind and its watch
// cache, stopped when the test ends.
func runStore(t *testing.T, e env, codec runtime.Codec, kind bool) *storage.Store {
	t.Helper()
	cfg := storage.Config{
		Client: e.client, Codec: codec, Prefix: prefix,
		NewFunc:     func() runtime.Object { return &corev1.Pod{} },
		NewListFunc: func() runtime.Object { return &corev1.PodList{} },
	}
	if kind {
		cfg.Kind = corev1.SchemeGroupVersion.WithKind("Pod")
	}
	s, err := storage.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if err := s.WaitForWatchCache(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// The watch cache takes its own store's creates as the store copied them,
// decoding none, and the copy is what decoding the stored value gives
// (the creation time to the second, apiVersion and kind set); another
// store's cache on the same etcd decodes them.
func TestWatchCacheTakesWhatItsStoreCreated(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	mine, other := &countingCodec{Codec: storeCodec()}, &countingCodec{Codec: storeCodec()}
	s := runStore(t, e, mine, true)
	runStore(t, e, other, true)
	start, err := s.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mine.decodes.Store(0)
	const creates = 5
	for i := range creates {
		p := pod("default", fmt.Sprintf("p%d", i), map[string]string{"n": fmt.Sprint(i)})
		p.CreationTimestamp = metav1.NewTime(time.Now()) // with nanoseconds, as the registry sets it
		if _, err := s.Create(ctx, key("default", p.Name), p, storage.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range creates {
		ev := nextEvent(t, w)
		if ev.Type != watch.Added {
			t.Fatalf("event %d: %s, want ADDED", i, ev.Type)
		}
		got := ev.Object.(*corev1.Pod)
		resp, err := e.client.Get(ctx, key("default", got.Name))
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("read %s: %v", got.Name, err)
		}
		want, _, err := storeCodec().Decode(resp.Kvs[0].Value, nil, &corev1.Pod{})
		if err != nil {
			t.Fatal(err)
		}
		want.(*corev1.Pod).ResourceVersion = fmt.Sprint(resp.Kvs[0].ModRevision)
		if !apiequality.Semantic.DeepEqual(got, want) || got.GroupVersionKind() != want.GetObjectKind().GroupVersionKind() {
			t.Errorf("event %d: %#v, want what the stored value decodes to: %#v", i, got, want)
		}
	}
	if n := mine.decodes.Load(); n != 0 {
		t.Errorf("the store's own cache decoded %d of its %d creates, want none", n, creates)
	}
	waitForDecodes(t, other, creates)
}

// waitForDecodes waits for codec to have decoded at least n values.
func waitForDecodes(t *testing.T, codec *countingCodec, n int64) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for codec.decodes.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the other store's cache decoded %d values, want at least %d", codec.decodes.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
