package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// PersistentVolumes is core/v1 persistentvolumes, cluster-scoped, with
// upstream's strategies (pkg/registry/core/persistentvolume): a new
// volume starts in phase Pending with its lastPhaseTransitionTime set;
// its status changes only through persistentvolumes/status (the
// persistentvolume-binder's), which stamps a new lastPhaseTransitionTime
// on each change of phase; a delete answers the volume.
var PersistentVolumes = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("PersistentVolume"),
	Plural:              "persistentvolumes",
	Singular:            "persistentvolume",
	ShortNames:          []string{"pv"},
	ReturnDeletedObject: true,
	NewFunc:             func() runtime.Object { return &corev1.PersistentVolume{} },
	NewListFunc:         func() runtime.Object { return &corev1.PersistentVolumeList{} },
	Table:               printers.PersistentVolumes,
	Default:             upstreamDefaults(upcorev1.SetObjectDefaults_PersistentVolume, upcorev1.Convert_v1_PersistentVolume_To_core_PersistentVolume, upcorev1.Convert_core_PersistentVolume_To_v1_PersistentVolume),
	Strategy:            upstreamStrategy(persistentvolume.Strategy, "", upcorev1.Convert_v1_PersistentVolume_To_core_PersistentVolume, upcorev1.Convert_core_PersistentVolume_To_v1_PersistentVolume),
	Status:              &PersistentVolumeStatusStrategy,
}

// PersistentVolumeStatusStrategy is the strategy of
// persistentvolumes/status.
var PersistentVolumeStatusStrategy = upstreamStrategy(persistentvolume.StatusStrategy, "status", upcorev1.Convert_v1_PersistentVolume_To_core_PersistentVolume, upcorev1.Convert_core_PersistentVolume_To_v1_PersistentVolume)
