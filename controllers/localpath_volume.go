package controllers

import (
	"errors"
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// localPathVolume is the PersistentVolume local-path-provisioner makes
// for pvc of class on node, or the error it fails the claim with.
func localPathVolume(pvc *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, node string) (*corev1.PersistentVolume, error) {
	if pvc.Spec.Selector != nil {
		return nil, errors.New("claim.Spec.Selector is not supported")
	}
	for _, m := range pvc.Spec.AccessModes {
		if m != corev1.ReadWriteOnce {
			return nil, errors.New("Only support ReadWriteOnce access mode") //nolint:staticcheck // the provisioner's words
		}
	}
	if node == "" {
		return nil, errNoNode
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	name := "pvc-" + string(pvc.UID)
	dirOrCreate := corev1.HostPathDirectoryOrCreate
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{annProvisionedBy: LocalPathProvisioner}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			VolumeMode:                    pvc.Spec.VolumeMode,
			MountOptions:                  class.MountOptions,
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
				Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: path.Join(LocalPathBase, fmt.Sprintf("%s_%s_%s", name, pvc.Namespace, pvc.Name)), Type: &dirOrCreate}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
	}
	return pv, nil
}

// newLocalPathProvisionerDescriptor is kubesim's stand-in for kind's
// local-path-provisioner (LocalPathController), run by the manager as
// kube-system/kubesim-local-path-provisioner. 1 worker.
func newLocalPathProvisionerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: LocalPathProvisionerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := cc.client(LocalPathProvisionerName)
			if err != nil {
				return nil, err
			}
			return NewLocalPathController(cc.factory, client).Run, nil
		}}
}
