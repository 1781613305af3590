package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// NamespaceCache knows every namespace and its phase, fed by a watch, so
// that checking the namespace of each create does not cost an etcd read
// (kube-apiserver's NamespaceLifecycle admission uses an informer the same
// way). It is safe for concurrent use.
type NamespaceCache struct {
	cache *objectCache
}

// NewNamespaceCache returns an empty cache over the namespaces store; Run
// fills it.
func NewNamespaceCache(namespaces *Store) *NamespaceCache {
	return &NamespaceCache{cache: newObjectCache(namespaces)}
}

// Run keeps the cache current until ctx is done, rewatching after errors.
func (c *NamespaceCache) Run(ctx context.Context) { c.cache.run(ctx) }

// Phase returns the phase of a namespace. A namespace the cache does not
// know (yet: it may have just been created) is read from etcd.
func (c *NamespaceCache) Phase(ctx context.Context, name string) (corev1.NamespacePhase, error) {
	if obj, ok := c.cache.get("", name); ok {
		return obj.(*corev1.Namespace).Status.Phase, nil
	}
	return c.LivePhase(ctx, name)
}

// LivePhase reads the phase of a namespace from etcd.
func (c *NamespaceCache) LivePhase(ctx context.Context, name string) (corev1.NamespacePhase, error) {
	obj, err := c.cache.store.Get(ctx, "", name, nil)
	if err != nil {
		return "", err
	}
	return obj.(*corev1.Namespace).Status.Phase, nil
}
