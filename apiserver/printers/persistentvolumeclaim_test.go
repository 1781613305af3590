package printers_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/apiserver/printers"
)

var pvcColumns = []string{"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode*"}

// TestPersistentVolumeClaimCells: capacity and access modes show only
// for a claim bound to a volume (the status's, abbreviated in upstream's
// order); the class is the beta annotation's before the spec's; a claim
// being deleted is Terminating.
func TestPersistentVolumeClaimCells(t *testing.T) {
	block := corev1.PersistentVolumeBlock
	gold, fast := "gold", "fast"
	requests := corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}
	bound := &corev1.PersistentVolumeClaim{ObjectMeta: created("bound"),
		Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1", StorageClassName: &gold, VolumeAttributesClassName: &fast, VolumeMode: &block, Resources: requests},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOnce}}}
	pending := &corev1.PersistentVolumeClaim{ObjectMeta: created("pending"), Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &gold, Resources: requests},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}
	pending.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "beta"}
	deleting := &corev1.PersistentVolumeClaim{ObjectMeta: created("gone"), Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	deleting.DeletionTimestamp = agoPtr(day)
	runKindCases(t, []kindCase{
		{name: "bound", handler: printers.PersistentVolumeClaims, obj: bound, columns: pvcColumns,
			cells: []string{"bound", "Bound", "pv-1", "2Gi", "RWO,RWX", "gold", "fast", "3d1h", "Block"}},
		{name: "pending", handler: printers.PersistentVolumeClaims, obj: pending, columns: pvcColumns,
			cells: []string{"pending", "Pending", "", "", "", "beta", "<unset>", "3d1h", "<unset>"}},
		{name: "deleting", handler: printers.PersistentVolumeClaims, obj: deleting, columns: pvcColumns,
			cells: []string{"gone", "Terminating", "", "", "", "", "<unset>", "3d1h", "<unset>"}},
	})
}
