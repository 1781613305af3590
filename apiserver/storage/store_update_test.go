package storage_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// relabel is an update that sets one label.
func relabel(name, value string) storage.UpdateFunc {
	return func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod).DeepCopy()
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[name] = value
		return p, nil
	}
}

// An update starts from the watch cache's state of the key: with the
// cache holding the pod, the update decodes nothing; by the time the
// cache has the new state, that is one decode (the cache's own), not two.
func TestUpdateStartsFromTheWatchCache(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	counting := &countingCodec{Codec: storeCodec()}
	s := runStore(t, e, counting, true)
	p := mustCreate(t, s, pod("default", "p", nil))
	rev, _ := s.CurrentRevision(ctx)
	if !storage.WaitForWatchCache(s, rev) {
		t.Fatal("the watch cache did not reach the create")
	}
	counting.decodes.Store(0)
	out, err := s.GuaranteedUpdate(ctx, key("default", "p"), nil, false, storage.WriteOptions{}, relabel("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if !storage.WaitForWatchCache(s, mustRevision(t, out)) {
		t.Fatal("the watch cache did not reach the update")
	}
	if got := counting.decodes.Load(); got != 1 {
		t.Errorf("%d decodes for an update, want 1 (the cache's of the new state; the update starts from its copy)", got)
	}
	if o := out.(*corev1.Pod); o.Labels["a"] != "1" || o.UID != p.UID || o.ResourceVersion == p.ResourceVersion {
		t.Errorf("updated pod = %+v", o.ObjectMeta)
	}
	// Nothing to change: decided on etcd's state, no write.
	rev, _ = s.CurrentRevision(ctx)
	if !storage.WaitForWatchCache(s, rev) {
		t.Fatal("the watch cache did not reach the update")
	}
	same, err := s.GuaranteedUpdate(ctx, key("default", "p"), nil, false, storage.WriteOptions{}, relabel("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := s.CurrentRevision(ctx); after != rev || same.(*corev1.Pod).ResourceVersion != fmt.Sprint(rev) {
		t.Errorf("a no-op update moved the revision %d → %d (resourceVersion %s)", rev, after, same.(*corev1.Pod).ResourceVersion)
	}
}

// Updates through a store whose cache may not yet have seen another
// store's write right before lose nothing: each keeps the other's label.
func TestUpdateAfterAnotherStoresWrite(t *testing.T) {
	ctx := context.Background()
	e := newStore(t)
	mine := runStore(t, e, storeCodec(), true)
	other := runStore(t, e, storeCodec(), true)
	mustCreate(t, mine, pod("default", "p", nil))
	k := key("default", "p")
	for i := range 20 {
		if _, err := other.GuaranteedUpdate(ctx, k, nil, false, storage.WriteOptions{}, relabel("other", fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		out, err := mine.GuaranteedUpdate(ctx, k, nil, false, storage.WriteOptions{}, relabel("mine", fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		if l := out.(*corev1.Pod).Labels; l["other"] != fmt.Sprint(i) || l["mine"] != fmt.Sprint(i) {
			t.Fatalf("round %d: labels %v, want other=%d and mine=%d", i, l, i, i)
		}
	}
}

// mustRevision is obj's resourceVersion as a revision.
func mustRevision(t *testing.T, obj runtime.Object) int64 {
	t.Helper()
	var rev int64
	if _, err := fmt.Sscan(obj.(*corev1.Pod).ResourceVersion, &rev); err != nil {
		t.Fatal(err)
	}
	return rev
}
