// Package informertrim holds the informer transforms kubesim's components
// share: each drops what a component never reads before the object enters
// its informer's cache, as kube-scheduler's pod informer and
// kube-controller-manager's informer factories drop managedFields.
package informertrim

import "k8s.io/apimachinery/pkg/api/meta"

// ManagedFields clears an object's metadata.managedFields (server-side
// apply's bookkeeping, often a third of a pod's bytes upstream), as the
// informers of kube-scheduler (its pod informer) and
// kube-controller-manager (its shared and metadata informer factories)
// do. An object without metadata passes unchanged.
func ManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
