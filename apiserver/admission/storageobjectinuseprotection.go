package admission

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
)

// StorageObjectInUseProtectionName is the StorageObjectInUseProtection
// plugin's name.
const StorageObjectInUseProtectionName = "StorageObjectInUseProtection"

var volumesResource = schema.GroupResource{Resource: "persistentvolumes"}

// StorageObjectInUseProtection puts the finalizer
// kubernetes.io/pvc-protection on every new PersistentVolumeClaim and
// kubernetes.io/pv-protection on every new PersistentVolume, as
// kube-apiserver's plugin of that name
// (plugin/pkg/admission/storage/storageobjectinuseprotection) does: a
// claim a pod uses, or a volume bound to a claim, is then not removed
// when deleted until kube-controller-manager's pvc-protection-controller
// (pv-protection-controller) sees it unused and takes the finalizer off.
// (Upstream's plugin also protects VolumeAttributesClasses, which
// kubesim does not serve.) It has no state.
type StorageObjectInUseProtection struct{}

var _ MutatingPlugin = StorageObjectInUseProtection{}

// Name returns "StorageObjectInUseProtection".
func (StorageObjectInUseProtection) Name() string { return StorageObjectInUseProtectionName }

// Handles reports whether upstream's StorageObjectInUseProtection handles op (creates).
func (StorageObjectInUseProtection) Handles(op Operation) bool { return handles(op, Create) }

// Admit acts on the create of a claim or a volume (not of their
// subresources). Fields look like
// "metadata.finalizers+=kubernetes.io/pvc-protection".
func (StorageObjectInUseProtection) Admit(_ context.Context, a *Attributes) ([]string, bool, error) {
	if a.Operation != Create || a.Subresource != "" {
		return nil, false, nil
	}
	var m *metav1.ObjectMeta
	var finalizer string
	switch obj := a.Object.(type) {
	case *corev1.PersistentVolumeClaim:
		m, finalizer = &obj.ObjectMeta, volumeutil.PVCProtectionFinalizer
	case *corev1.PersistentVolume:
		m, finalizer = &obj.ObjectMeta, volumeutil.PVProtectionFinalizer
	default:
		return nil, false, nil
	}
	if gr := a.Resource.GroupResource(); gr != claimsResource && gr != volumesResource {
		return nil, false, nil
	}
	if slices.Contains(m.Finalizers, finalizer) {
		return nil, true, nil
	}
	m.Finalizers = append(m.Finalizers, finalizer)
	return []string{"metadata.finalizers+=" + finalizer}, true, nil
}
