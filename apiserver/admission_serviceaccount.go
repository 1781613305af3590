package apiserver

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/admission"
)

var _ admission.ServiceAccountGetter = serviceAccountGetter{}

// CachedServiceAccount reads a service account from the watch cache (the
// informer upstream's ServiceAccount admission plugin lists from).
func (g serviceAccountGetter) CachedServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	obj, err := g.reg.ServiceAccounts.Get(ctx, namespace, name, &metav1.GetOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.ServiceAccount), nil
}

// LiveServiceAccount reads a service account from etcd.
func (g serviceAccountGetter) LiveServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	obj, err := g.reg.ServiceAccounts.Get(ctx, namespace, name, nil)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.ServiceAccount), nil
}
