package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	pvcutil "k8s.io/kubernetes/pkg/api/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// PersistentVolumeClaims is core/v1 persistentvolumeclaims, on upstream's
// persistentvolumeclaimStrategy (pkg/registry/core/persistentvolumeclaim):
// a new claim's status is reset to phase Pending (upstream resets it to
// empty and its v1 defaults read phase Pending back), its status changes
// only through persistentvolumeclaims/status, and a delete answers the
// claim. Upstream's persistentvolume-binder binds claims (the
// controller manager runs it); the admission plugins DefaultStorageClass
// and StorageObjectInUseProtection set a new claim's class and its
// kubernetes.io/pvc-protection finalizer.
var PersistentVolumeClaims = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"),
	Plural:              "persistentvolumeclaims",
	Singular:            "persistentvolumeclaim",
	ShortNames:          []string{"pvc"},
	Namespaced:          true,
	ReturnDeletedObject: true,
	NewFunc:             func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
	NewListFunc:         func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
	Status:              &PersistentVolumeClaimStatusStrategy,
	Table:               printers.PersistentVolumeClaims,
	Default:             defaultPVC,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			preparePVC(obj, nil)
			obj.(*corev1.PersistentVolumeClaim).Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			obj.(*corev1.PersistentVolumeClaim).Status = old.(*corev1.PersistentVolumeClaim).Status
			preparePVC(obj, old)
		},
		Validate:                 validatePVC,
		ValidateUpdate:           validatePVCUpdate,
		WarningsOnCreate:         warnPVC,
		WarningsOnUpdate:         func(ctx context.Context, obj, _ runtime.Object) []string { return warnPVC(ctx, obj) },
		AllowUnconditionalUpdate: true,
	},
}

// PersistentVolumeClaimStatusStrategy is the strategy of
// persistentvolumeclaims/status: it keeps the stored spec and drops the
// status fields of disabled features.
var PersistentVolumeClaimStatusStrategy = Strategy{
	PrepareForUpdate: upstreamPrepare(upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, upcorev1.Convert_core_PersistentVolumeClaim_To_v1_PersistentVolumeClaim,
		func(pvc, old *core.PersistentVolumeClaim) {
			pvc.Spec = old.Spec
			pvcutil.DropDisabledFieldsFromStatus(pvc, old)
		}),
	ValidateUpdate:           validatePVCStatus,
	AllowUnconditionalUpdate: true,
}

// preparePVC is the spec part of upstream's PrepareForCreate (old nil)
// and PrepareForUpdate: disabled fields dropped, dataSource and
// dataSourceRef made to agree.
var preparePVC = upstreamPrepare(upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, upcorev1.Convert_core_PersistentVolumeClaim_To_v1_PersistentVolumeClaim,
	func(pvc, old *core.PersistentVolumeClaim) {
		var oldSpec *core.PersistentVolumeClaimSpec
		if old != nil {
			oldSpec = &old.Spec
		}
		pvcutil.DropDisabledFields(&pvc.Spec, oldSpec)
		pvcutil.EnforceDataSourceBackwardsCompatibility(&pvc.Spec, oldSpec)
		pvcutil.NormalizeDataSources(&pvc.Spec)
	})

// The defaults, validation and warnings of claims are upstream's.
var (
	defaultPVC  = upstreamDefaults(upcorev1.SetObjectDefaults_PersistentVolumeClaim, upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, upcorev1.Convert_core_PersistentVolumeClaim_To_v1_PersistentVolumeClaim)
	validatePVC = upstreamValidate(upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, func(pvc *core.PersistentVolumeClaim) field.ErrorList {
		return corevalidation.ValidatePersistentVolumeClaim(pvc, corevalidation.ValidationOptionsForPersistentVolumeClaim(pvc, nil))
	})
	validatePVCUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, func(pvc, old *core.PersistentVolumeClaim) field.ErrorList {
		// Upstream's PrepareForUpdate normalizes the old claim's data sources too.
		pvcutil.NormalizeDataSources(&old.Spec)
		return corevalidation.ValidatePersistentVolumeClaimUpdate(pvc, old, corevalidation.ValidationOptionsForPersistentVolumeClaim(pvc, old))
	})
	validatePVCStatus = upstreamValidateSubresource("status", upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, func(pvc, old *core.PersistentVolumeClaim) field.ErrorList {
		return corevalidation.ValidatePersistentVolumeClaimStatusUpdate(pvc, old, corevalidation.ValidationOptionsForPersistentVolumeClaim(pvc, old))
	})
	warnPVC = upstreamWarnings(upcorev1.Convert_v1_PersistentVolumeClaim_To_core_PersistentVolumeClaim, func(_ context.Context, pvc *core.PersistentVolumeClaim) []string {
		return pvcutil.GetWarningsForPersistentVolumeClaim(pvc)
	})
)
