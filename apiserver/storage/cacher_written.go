package storage

import (
	"bytes"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxWritten bounds the creates the watch cache expects (see
// writtenObjects).
const maxWritten = 1024

// writtenObjects holds, by key, a copy of each object the Store is
// creating, with the value it writes, until the watch cache sees that
// value come back from etcd's watch: the cache then takes the copy
// instead of decoding the value again. kube-apiserver's cacher decodes
// every change it gets from etcd, its own server's creates too; kubesim
// skips that for the creates it makes itself (the JSON decoding of a pod
// costs several times its deep copy). The copy is made, and expected,
// before the write is sent, for etcd's watch may deliver the change
// before the write's answer reaches the writer; a write that fails
// withdraws it. The copy is the object as decoding the stored value
// would give it: the value is the encoding of the object copied, and
// the copy has the stored apiVersion and kind, no selfLink, the creation
// and deletion timestamps at the precision they are stored with (whole
// seconds; the only values of a create set in memory rather than
// decoded from a request), and gets the change's revision as its
// resourceVersion when the cache takes it. Guarded by the cache's mutex;
// the zero value expects nothing until the cache runs.
type writtenObjects struct {
	byKey map[string]*writtenObject
	// on: the cache runs (between its watch's creation and its end).
	on bool
}

// writtenObject is one create expected.
type writtenObject struct {
	value []byte
	obj   runtime.Object
}

// expect tells the cache that the Store is about to create key with
// value, the encoding of obj, and returns what to pass to withdraw if
// the create fails (nil when the cache expects nothing: it does not
// run, or the Store has no Kind).
func (c *watchCache) expect(key string, value []byte, obj runtime.Object) *writtenObject {
	kind := c.s.kind
	if kind.Empty() || !c.expects() {
		return nil
	}
	w := &writtenObject{value: value, obj: copyAsStored(obj, kind)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.written.on || len(c.written.byKey) >= maxWritten {
		return nil
	}
	if c.written.byKey == nil {
		c.written.byKey = map[string]*writtenObject{}
	}
	c.written.byKey[key] = w
	return w
}

// expects reports whether the cache runs and has room for one more.
func (c *watchCache) expects() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written.on && len(c.written.byKey) < maxWritten
}

// withdraw forgets w, expected at key, whose create failed.
func (c *watchCache) withdraw(key string, w *writtenObject) {
	if w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written.byKey[key] == w {
		delete(c.written.byKey, key)
	}
}

// takeWritten returns, for each event, the copy the Store made of the
// object it created, stamped with the event's revision (nil for the
// other events).
func (c *watchCache) takeWritten(events []*clientv3.Event) []runtime.Object {
	out := make([]runtime.Object, len(events))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.written.byKey) == 0 {
		return out
	}
	for i, ev := range events {
		if !ev.IsCreate() {
			continue
		}
		key := string(ev.Kv.Key)
		w, ok := c.written.byKey[key]
		if !ok || !bytes.Equal(w.value, ev.Kv.Value) {
			continue // another writer's create, or ours is still to come
		}
		delete(c.written.byKey, key)
		if m, err := meta.Accessor(w.obj); err == nil {
			m.SetResourceVersion(strconv.FormatInt(ev.Kv.ModRevision, 10))
			out[i] = w.obj
		}
	}
	return out
}

// resetLocked forgets every copy and notes whether the cache runs.
// Called with c.mu held.
func (w *writtenObjects) resetLocked(on bool) {
	w.byKey, w.on = nil, on
}

// copyAsStored returns a deep copy of obj as decoding its stored value
// gives it (see writtenObjects).
func copyAsStored(obj runtime.Object, kind schema.GroupVersionKind) runtime.Object {
	c := obj.DeepCopyObject()
	c.GetObjectKind().SetGroupVersionKind(kind)
	m, err := meta.Accessor(c)
	if err != nil {
		return c
	}
	m.SetSelfLink("")
	m.SetCreationTimestamp(asStored(m.GetCreationTimestamp()))
	if ts := m.GetDeletionTimestamp(); ts != nil {
		stored := asStored(*ts)
		m.SetDeletionTimestamp(&stored)
	}
	return c
}

// asStored is t as it reads back from JSON or protobuf: whole seconds,
// in the local time zone (metav1.Time's decoders).
func asStored(t metav1.Time) metav1.Time {
	if t.IsZero() {
		return t
	}
	return metav1.NewTime(time.Unix(t.Unix(), 0).Local())
}
