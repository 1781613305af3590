package printers

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// persistentVolumeClaimColumns are the columns of `kubectl get
// persistentvolumeclaims` (upstream's
// persistentVolumeClaimColumnDefinitions).
var persistentVolumeClaimColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Status", Type: "string", Description: corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()["phase"]},
	{Name: "Volume", Type: "string", Description: corev1.PersistentVolumeClaimSpec{}.SwaggerDoc()["volumeName"]},
	{Name: "Capacity", Type: "string", Description: corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()["capacity"]},
	{Name: "Access Modes", Type: "string", Description: corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()["accessModes"]},
	{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc"},
	{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc"},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "VolumeMode", Type: "string", Priority: 1, Description: corev1.PersistentVolumeClaimSpec{}.SwaggerDoc()["volumeMode"]},
}

// persistentVolumeClaim prints NAME STATUS VOLUME CAPACITY ACCESS MODES
// STORAGECLASS VOLUMEATTRIBUTESCLASS AGE, then VOLUMEMODE, as upstream's
// printPersistentVolumeClaim: STATUS is Terminating once the claim is
// being deleted; CAPACITY and ACCESS MODES are the status's, and only
// for a claim bound to a volume; an unset attributes class or volume
// mode is <unset>.
func (p printer) persistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) metav1.TableRow {
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		modes = accessModes(pvc.Status.AccessModes)
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity = q.String()
	}
	attrsClass, volumeMode := "<unset>", "<unset>"
	if pvc.Spec.VolumeAttributesClassName != nil {
		attrsClass = *pvc.Spec.VolumeAttributesClassName
	}
	if pvc.Spec.VolumeMode != nil {
		volumeMode = string(*pvc.Spec.VolumeMode)
	}
	return metav1.TableRow{
		Cells: []any{pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, claimClass(pvc), attrsClass,
			p.since(pvc.CreationTimestamp.Time), volumeMode},
		Object: runtime.RawExtension{Object: pvc},
	}
}

// claimClass is the claim's storage class: the beta annotation's if set,
// else spec.storageClassName, else "" (upstream's
// GetPersistentVolumeClaimClass).
func claimClass(pvc *corev1.PersistentVolumeClaim) string {
	if class, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return class
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

// accessModes abbreviates modes as upstream's GetAccessModesAsString:
// RWO, ROX, RWX, RWOP in that order, each once.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

// PersistentVolumeClaims prints persistent volume claims.
var PersistentVolumeClaims = tableHandler(persistentVolumeClaimColumns, printer.persistentVolumeClaim)
