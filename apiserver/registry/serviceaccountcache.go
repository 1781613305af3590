package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ServiceAccountCache knows every ServiceAccount, fed by a watch served
// by the watch cache, so that the ServiceAccount admission of each pod
// create does not cost an etcd read: upstream's plugin reads its
// informer's lister the same way, and falls back to a live GET when the
// lister has not got the account (yet). Safe for concurrent use.
type ServiceAccountCache struct {
	cache *objectCache
}

// NewServiceAccountCache returns an empty cache over the service
// accounts store; Run fills it.
func NewServiceAccountCache(accounts *Store) *ServiceAccountCache {
	return &ServiceAccountCache{cache: newObjectCache(accounts)}
}

// Run keeps the cache current until ctx is done, rewatching after errors.
func (c *ServiceAccountCache) Run(ctx context.Context) { c.cache.run(ctx) }

// Get returns the account as the cache last saw it, or a NotFound error
// when the cache does not know it (it may not have seen it yet: the
// caller reads storage then). The account is shared with every other
// reader and must not be modified.
func (c *ServiceAccountCache) Get(namespace, name string) (*corev1.ServiceAccount, error) {
	if obj, ok := c.cache.get(namespace, name); ok {
		return obj.(*corev1.ServiceAccount), nil
	}
	return nil, apierrors.NewNotFound(ServiceAccounts.GroupResource(), name)
}
