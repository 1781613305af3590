package storage_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// The watch cache takes a change's previous state from the key's
// previous change instead of decoding etcd's prevKV: a create, an update
// and a delete made by another store cost this store's cache two decodes
// (the create's and the update's new states), not four. The DELETED
// events still carry the previous state stamped with their own revision
// (the delete's; the update's, for a watcher whose selector the update
// leaves), while the events before keep theirs.
func TestWatchCacheSharesPreviousStates(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	counting := &countingCodec{Codec: storeCodec()}
	s := runStore(t, e, counting, true)
	start, err := s.CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start)})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Stop()
	web, err := s.Watch(ctx, prefix, storage.ListOptions{ResourceVersion: fmt.Sprint(start),
		Predicate: storage.Predicate{Label: labels.SelectorFromSet(labels.Set{"app": "web"}), GetAttrs: podAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Stop()
	counting.decodes.Store(0)

	created := mustCreate(t, e.store, pod("default", "p", map[string]string{"app": "web"}))
	updated, err := e.store.GuaranteedUpdate(ctx, key("default", "p"), nil, false, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod).DeepCopy()
		p.Labels = map[string]string{"app": "db"}
		return p, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Delete(ctx, key("default", "p"), nil, nil, storage.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	deletedAt, err := e.store.CurrentRevision(ctx) // nothing else writes
	if err != nil {
		t.Fatal(err)
	}
	rv := func(obj runtime.Object) string {
		m, err := meta.Accessor(obj)
		if err != nil {
			t.Fatal(err)
		}
		return m.GetResourceVersion()
	}
	added, modified, gone := nextEvent(t, all), nextEvent(t, all), nextEvent(t, all)
	left := []watch.Event{nextEvent(t, web), nextEvent(t, web)}
	for _, c := range []struct {
		what   string
		ev     watch.Event
		typ    watch.EventType
		rv     string
		labels string
	}{
		{"create", added, watch.Added, rv(created), "web"},
		{"update", modified, watch.Modified, rv(updated), "db"},
		{"delete", gone, watch.Deleted, fmt.Sprint(deletedAt), "db"},
		{"create, to the web watcher", left[0], watch.Added, rv(created), "web"},
		{"update leaving the web watcher's selector", left[1], watch.Deleted, rv(updated), "web"},
	} {
		if c.ev.Type != c.typ || rv(c.ev.Object) != c.rv || c.ev.Object.(*corev1.Pod).Labels["app"] != c.labels {
			t.Errorf("%s: %s at %s with app=%s, want %s at %s with app=%s", c.what, c.ev.Type, rv(c.ev.Object),
				c.ev.Object.(*corev1.Pod).Labels["app"], c.typ, c.rv, c.labels)
		}
	}
	if got := counting.decodes.Load(); got != 2 {
		t.Errorf("the cache decoded %d times for a create, an update and a delete, want 2 (the new states only)", got)
	}
}
