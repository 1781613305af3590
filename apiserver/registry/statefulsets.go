package registry

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	pvcutil "k8s.io/kubernetes/pkg/api/persistentvolumeclaim"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	upappsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/features"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// StatefulSets is apps/v1 statefulsets. Its status changes only through
// statefulsets/status, its replicas also through statefulsets/scale; a
// change of its spec (not of its labels or annotations) bumps
// metadata.generation, as upstream's statefulSetStrategy
// (pkg/registry/apps/statefulset/strategy.go) does.
var StatefulSets = &Resource{
	Kind:        appsv1.SchemeGroupVersion.WithKind("StatefulSet"),
	Plural:      "statefulsets",
	Singular:    "statefulset",
	ShortNames:  []string{"sts"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &appsv1.StatefulSet{} },
	NewListFunc: func() runtime.Object { return &appsv1.StatefulSetList{} },
	Status:      &StatefulSetStatusStrategy,
	Scale:       statefulSetScale,
	Table:       printers.StatefulSets,
	Default:     defaultStatefulSet,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			s := obj.(*appsv1.StatefulSet)
			s.Status, s.Generation = appsv1.StatefulSetStatus{}, 1
			dropStatefulSetDisabledFields(s, nil)
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			s, o := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
			s.Status = o.Status
			dropStatefulSetDisabledFields(s, o)
			if !apiequality.Semantic.DeepEqual(s.Spec, o.Spec) {
				s.Generation = o.Generation + 1
			}
		},
		Validate:                 validateStatefulSet,
		ValidateUpdate:           validateStatefulSetUpdate,
		WarningsOnCreate:         warnStatefulSetCreate,
		WarningsOnUpdate:         warnStatefulSetUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// StatefulSetStatusStrategy is the strategy of statefulsets/status: it
// keeps the stored spec (upstream's keeps the labels the request sends).
var StatefulSetStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*appsv1.StatefulSet).Spec = old.(*appsv1.StatefulSet).Spec
	},
	ValidateUpdate:           validateStatefulSetStatus,
	AllowUnconditionalUpdate: true,
}

// statefulSetScale is statefulsets/scale: spec.replicas, status.replicas
// and spec.selector of a StatefulSet.
var statefulSetScale = &Scale{
	Replicas: func(obj runtime.Object) (int32, int32, *metav1.LabelSelector) {
		s := obj.(*appsv1.StatefulSet)
		return replicasOf(s.Spec.Replicas), s.Status.Replicas, s.Spec.Selector
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.StatefulSet).Spec.Replicas = &n },
}

// dropStatefulSetDisabledFields clears spec.updateStrategy.rollingUpdate.
// maxUnavailable while the MaxUnavailableStatefulSet gate is off, unless
// old (nil on create) uses it already, as upstream's function of that
// name.
func dropStatefulSetDisabledFields(s, old *appsv1.StatefulSet) {
	if utilfeature.DefaultFeatureGate.Enabled(features.MaxUnavailableStatefulSet) {
		return
	}
	if old != nil && old.Spec.UpdateStrategy.RollingUpdate != nil && old.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil {
		return
	}
	if s.Spec.UpdateStrategy.RollingUpdate != nil {
		s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil
	}
}

// The defaults, validation and warnings of stateful sets are upstream's
// statefulSetStrategy's and statefulSetStatusStrategy's: a new set needs
// a valid serviceName; an update tolerates a stored invalid serviceName
// and volumeClaimTemplates (both immutable).
var (
	defaultStatefulSet  = upstreamDefaults(upappsv1.SetObjectDefaults_StatefulSet, upappsv1.Convert_v1_StatefulSet_To_apps_StatefulSet, upappsv1.Convert_apps_StatefulSet_To_v1_StatefulSet)
	validateStatefulSet = upstreamValidate(upappsv1.Convert_v1_StatefulSet_To_apps_StatefulSet, func(s *apps.StatefulSet) field.ErrorList {
		setOpts := appsvalidation.StatefulSetValidationOptions{
			AllowStatefulSetRecreateStrategy: utilfeature.DefaultFeatureGate.Enabled(features.StatefulSetRecreateStrategy),
		}
		return appsvalidation.ValidateStatefulSet(s, setOpts, podutil.GetValidationOptionsFromPodTemplate(&s.Spec.Template, nil))
	})
	validateStatefulSetUpdate = upstreamValidateUpdate(upappsv1.Convert_v1_StatefulSet_To_apps_StatefulSet, func(s, old *apps.StatefulSet) field.ErrorList {
		setOpts := appsvalidation.StatefulSetValidationOptions{
			AllowInvalidServiceName:          true,
			SkipValidateVolumeClaimTemplates: true,
			AllowStatefulSetRecreateStrategy: utilfeature.DefaultFeatureGate.Enabled(features.StatefulSetRecreateStrategy) || old.Spec.UpdateStrategy.Type == apps.RecreateStatefulSetStrategyType,
		}
		return appsvalidation.ValidateStatefulSetUpdate(s, old, setOpts, podutil.GetValidationOptionsFromPodTemplate(&s.Spec.Template, &old.Spec.Template))
	})
	validateStatefulSetStatus = upstreamValidateSubresource("status", upappsv1.Convert_v1_StatefulSet_To_apps_StatefulSet, appsvalidation.ValidateStatefulSetStatusUpdate)

	warnStatefulSetCreate = upstreamWarnings(upappsv1.Convert_v1_StatefulSet_To_apps_StatefulSet, func(ctx context.Context, s *apps.StatefulSet) []string {
		warnings := podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &s.Spec.Template, nil)
		for i, pvc := range s.Spec.VolumeClaimTemplates {
			warnings = append(warnings, pvcutil.GetWarningsForPersistentVolumeClaimSpec(field.NewPath("spec", "volumeClaimTemplates").Index(i), pvc.Spec)...)
		}
		return append(warnings, negativeHistoryLimitWarning(s.Spec.RevisionHistoryLimit)...)
	})
	warnStatefulSetUpdate = upstreamWarningsOnUpdate(upappsv1.Convert_v1_StatefulSet_To_apps_StatefulSet, func(ctx context.Context, s, old *apps.StatefulSet) []string {
		var warnings []string
		if s.Generation != old.Generation {
			warnings = podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &s.Spec.Template, &old.Spec.Template)
		}
		for i, pvc := range s.Spec.VolumeClaimTemplates {
			// "Spec", capitalised, is upstream's path here.
			warnings = append(warnings, pvcutil.GetWarningsForPersistentVolumeClaimSpec(field.NewPath("spec", "volumeClaimTemplates").Index(i).Child("Spec"), pvc.Spec)...)
		}
		return append(warnings, negativeHistoryLimitWarning(s.Spec.RevisionHistoryLimit)...)
	})
)

// negativeHistoryLimitWarning is the stateful set strategy's warning of a
// negative spec.revisionHistoryLimit.
func negativeHistoryLimitWarning(limit *int32) []string {
	if limit != nil && *limit < 0 {
		return []string{"spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"}
	}
	return nil
}
