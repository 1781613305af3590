package registry

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// objectCache mirrors every object of one store in memory, fed by a watch
// (the WatchList way: the current state, a bookmark marking its end, then
// changes), and rewatches from scratch after any error. Safe for
// concurrent use.
type objectCache struct {
	store *Store

	mu     sync.RWMutex
	items  map[string]runtime.Object // namespace/name or name
	synced chan struct{}
	once   sync.Once
}

func newObjectCache(store *Store) *objectCache {
	return &objectCache{store: store, items: map[string]runtime.Object{}, synced: make(chan struct{})}
}

func cacheKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Between two watches objectCache waits rewatchMin, doubling up to
// rewatchMax while they keep failing at once (a watch cache that is
// still starting answers 429 until it runs: kube-apiserver's informers
// back off too).
const (
	rewatchMin = 5 * time.Millisecond
	rewatchMax = 100 * time.Millisecond
)

// run keeps the cache current until ctx is done.
func (c *objectCache) run(ctx context.Context) {
	wait := rewatchMin
	for ctx.Err() == nil {
		if c.watch(ctx) {
			wait = rewatchMin
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, rewatchMax)
	}
}

// watch follows one watch until it ends, and reports whether it got as
// far as the full state.
func (c *objectCache) watch(ctx context.Context) (loaded bool) {
	yes := true
	w, err := c.store.Watch(ctx, "", &metainternalversion.ListOptions{
		SendInitialEvents:    &yes,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return false
	}
	defer w.Stop()
	fresh := map[string]runtime.Object{}
	initial := true
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			return !initial
		}
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			return !initial
		}
		if initial {
			switch {
			case ev.Type == watch.Added:
				fresh[cacheKey(m.GetNamespace(), m.GetName())] = ev.Object
			case ev.Type == watch.Bookmark && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true":
				c.mu.Lock()
				c.items = fresh
				c.mu.Unlock()
				initial = false
				c.once.Do(func() { close(c.synced) })
			}
			continue
		}
		key := cacheKey(m.GetNamespace(), m.GetName())
		c.mu.Lock()
		switch ev.Type {
		case watch.Added, watch.Modified:
			c.items[key] = ev.Object
		case watch.Deleted:
			delete(c.items, key)
		}
		c.mu.Unlock()
	}
	return !initial
}

// waitForSync blocks until the first full state has loaded or ctx is done.
func (c *objectCache) waitForSync(ctx context.Context) bool {
	select {
	case <-c.synced:
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *objectCache) get(namespace, name string) (runtime.Object, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	obj, ok := c.items[cacheKey(namespace, name)]
	return obj, ok
}

// list returns the cached objects in namespace ("" = all namespaces for
// a namespaced store, everything for a cluster-scoped one).
func (c *objectCache) list(namespace string) []runtime.Object {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]runtime.Object, 0, len(c.items))
	for _, obj := range c.items {
		if namespace != "" {
			if m, err := meta.Accessor(obj); err != nil || m.GetNamespace() != namespace {
				continue
			}
		}
		out = append(out, obj)
	}
	return out
}
