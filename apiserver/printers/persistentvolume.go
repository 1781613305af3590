package printers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// persistentVolumeColumns are the columns of `kubectl get
// persistentvolumes` (upstream's persistentVolumeColumnDefinitions).
var persistentVolumeColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Capacity", Type: "string", Description: corev1.PersistentVolumeSpec{}.SwaggerDoc()["capacity"]},
	{Name: "Access Modes", Type: "string", Description: corev1.PersistentVolumeSpec{}.SwaggerDoc()["accessModes"]},
	{Name: "Reclaim Policy", Type: "string", Description: corev1.PersistentVolumeSpec{}.SwaggerDoc()["persistentVolumeReclaimPolicy"]},
	{Name: "Status", Type: "string", Description: corev1.PersistentVolumeStatus{}.SwaggerDoc()["phase"]},
	{Name: "Claim", Type: "string", Description: corev1.PersistentVolumeSpec{}.SwaggerDoc()["claimRef"]},
	{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv"},
	{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv"},
	{Name: "Reason", Type: "string", Description: corev1.PersistentVolumeStatus{}.SwaggerDoc()["reason"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "VolumeMode", Type: "string", Priority: 1, Description: corev1.PersistentVolumeSpec{}.SwaggerDoc()["volumeMode"]},
}

// persistentVolume prints NAME CAPACITY ACCESS MODES RECLAIM POLICY
// STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE, then
// VOLUMEMODE, as upstream's printPersistentVolume: CLAIM is
// <namespace>/<name> of the claimRef; STATUS is Terminating once the
// volume is being deleted; an unset attributes class or volume mode is
// <unset>.
func (p printer) persistentVolume(pv *corev1.PersistentVolume) metav1.TableRow {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	q := pv.Spec.Capacity[corev1.ResourceStorage]
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	attrsClass, volumeMode := "<unset>", "<unset>"
	if pv.Spec.VolumeAttributesClassName != nil {
		attrsClass = *pv.Spec.VolumeAttributesClassName
	}
	if pv.Spec.VolumeMode != nil {
		volumeMode = string(*pv.Spec.VolumeMode)
	}
	return metav1.TableRow{
		Cells: []any{pv.Name, q.String(), accessModes(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
			phase, claim, volumeClass(pv), attrsClass, pv.Status.Reason, p.since(pv.CreationTimestamp.Time), volumeMode},
		Object: runtime.RawExtension{Object: pv},
	}
}

// volumeClass is the volume's storage class: the beta annotation's if
// set, else spec.storageClassName (upstream's GetPersistentVolumeClass).
func volumeClass(pv *corev1.PersistentVolume) string {
	if class, ok := pv.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return class
	}
	return pv.Spec.StorageClassName
}

// PersistentVolumes prints persistent volumes.
var PersistentVolumes = tableHandler(persistentVolumeColumns, printer.persistentVolume)
