package registry

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// NamespaceCache knows every namespace and its phase, fed by a watch, so
// that checking the namespace of each create does not cost an etcd read
// (kube-apiserver's NamespaceLifecycle admission uses an informer the same
// way). It is safe for concurrent use.
type NamespaceCache struct {
	namespaces *Store

	mu     sync.RWMutex
	phases map[string]corev1.NamespacePhase
}

// NewNamespaceCache returns an empty cache over the namespaces store; Run
// fills it.
func NewNamespaceCache(namespaces *Store) *NamespaceCache {
	return &NamespaceCache{namespaces: namespaces, phases: map[string]corev1.NamespacePhase{}}
}

// Run keeps the cache current until ctx is done, rewatching after errors.
func (c *NamespaceCache) Run(ctx context.Context) {
	for ctx.Err() == nil {
		c.watch(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// watch replaces the cache with the current state and follows changes
// until the watch ends.
func (c *NamespaceCache) watch(ctx context.Context) {
	w, err := c.namespaces.Watch(ctx, "", nil)
	if err != nil {
		return
	}
	defer w.Stop()
	c.mu.Lock()
	c.phases = map[string]corev1.NamespacePhase{}
	c.mu.Unlock()
	for ev := range w.ResultChan() {
		ns, ok := ev.Object.(*corev1.Namespace)
		if !ok {
			return // an ERROR event: start over
		}
		c.mu.Lock()
		switch ev.Type {
		case watch.Added, watch.Modified:
			c.phases[ns.Name] = ns.Status.Phase
		case watch.Deleted:
			delete(c.phases, ns.Name)
		}
		c.mu.Unlock()
	}
}

// Phase returns the phase of a namespace. A namespace the cache does not
// know (yet: it may have just been created) is read from etcd.
func (c *NamespaceCache) Phase(ctx context.Context, name string) (corev1.NamespacePhase, error) {
	c.mu.RLock()
	phase, ok := c.phases[name]
	c.mu.RUnlock()
	if ok {
		return phase, nil
	}
	obj, err := c.namespaces.Get(ctx, "", name, nil)
	if err != nil {
		return "", err
	}
	return obj.(*corev1.Namespace).Status.Phase, nil
}
