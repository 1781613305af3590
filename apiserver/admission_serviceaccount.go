package apiserver

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/admission"
)

var _ admission.ServiceAccountGetter = serviceAccountGetter{}

// CachedServiceAccount reads a service account from the service account
// cache, fed by the watch cache (upstream's ServiceAccount admission
// plugin reads its informer's lister): no etcd read. An account the cache
// has not seen is NotFound; the plugin then reads storage. The account
// is shared and must not be modified.
func (g serviceAccountGetter) CachedServiceAccount(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return g.accounts.Get(namespace, name)
}

// LiveServiceAccount reads a service account from etcd.
func (g serviceAccountGetter) LiveServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	obj, err := g.reg.ServiceAccounts.Get(ctx, namespace, name, nil)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.ServiceAccount), nil
}
