package registry

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	upappsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// DaemonSets is apps/v1 daemonsets, on upstream's daemonSetStrategy
// (pkg/registry/apps/daemonset/strategy.go). Its status changes only
// through daemonsets/status. It keeps the internal type's
// spec.templateGeneration in the v1 annotation
// deprecated.daemonset.template.generation, as upstream's conversion
// does: 1 at creation, bumped with metadata.generation by a change of
// the pod template; any other change of the spec bumps
// metadata.generation alone.
var DaemonSets = &Resource{
	Kind:        appsv1.SchemeGroupVersion.WithKind("DaemonSet"),
	Plural:      "daemonsets",
	Singular:    "daemonset",
	ShortNames:  []string{"ds"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &appsv1.DaemonSet{} },
	NewListFunc: func() runtime.Object { return &appsv1.DaemonSetList{} },
	Status:      &DaemonSetStatusStrategy,
	Table:       printers.DaemonSets,
	Default:     defaultDaemonSet,
	Strategy: Strategy{
		PrepareForCreate:         func(obj runtime.Object) { prepareDaemonSet(obj, nil) },
		PrepareForUpdate:         prepareDaemonSet,
		Validate:                 validateDaemonSet,
		ValidateUpdate:           validateDaemonSetUpdate,
		WarningsOnCreate:         warnDaemonSetCreate,
		WarningsOnUpdate:         warnDaemonSetUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// DaemonSetStatusStrategy is the strategy of daemonsets/status: it keeps
// the stored spec, its template generation included.
var DaemonSetStatusStrategy = Strategy{
	PrepareForUpdate: upstreamPrepare(upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, upappsv1.Convert_apps_DaemonSet_To_v1_DaemonSet,
		func(ds, old *apps.DaemonSet) { ds.Spec = old.Spec }),
	ValidateUpdate:           validateDaemonSetStatus,
	AllowUnconditionalUpdate: true,
}

// prepareDaemonSet is upstream's PrepareForCreate (old nil) and
// PrepareForUpdate of daemon sets, on the internal type, whose
// spec.templateGeneration the v1 object carries as an annotation.
var prepareDaemonSet = upstreamPrepare(upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, upappsv1.Convert_apps_DaemonSet_To_v1_DaemonSet,
	func(ds, old *apps.DaemonSet) {
		if old == nil {
			ds.Status, ds.Generation = apps.DaemonSetStatus{}, 1
			if ds.Spec.TemplateGeneration < 1 {
				ds.Spec.TemplateGeneration = 1
			}
			return
		}
		ds.Status = old.Status
		ds.Spec.TemplateGeneration = old.Spec.TemplateGeneration
		if !apiequality.Semantic.DeepEqual(old.Spec.Template, ds.Spec.Template) {
			ds.Spec.TemplateGeneration = old.Spec.TemplateGeneration + 1
			ds.Generation = old.Generation + 1
			return
		}
		if !apiequality.Semantic.DeepEqual(old.Spec, ds.Spec) {
			ds.Generation = old.Generation + 1
		}
	})

// The defaults, validation and warnings of daemon sets are upstream's.
var (
	defaultDaemonSet  = upstreamDefaults(upappsv1.SetObjectDefaults_DaemonSet, upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, upappsv1.Convert_apps_DaemonSet_To_v1_DaemonSet)
	validateDaemonSet = upstreamValidate(upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, func(ds *apps.DaemonSet) field.ErrorList {
		return appsvalidation.ValidateDaemonSet(ds, podutil.GetValidationOptionsFromPodTemplate(&ds.Spec.Template, nil))
	})
	validateDaemonSetUpdate = upstreamValidateUpdate(upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, func(ds, old *apps.DaemonSet) field.ErrorList {
		opts := podutil.GetValidationOptionsFromPodTemplate(&ds.Spec.Template, &old.Spec.Template)
		opts.AllowInvalidLabelValueInSelector = opts.AllowInvalidLabelValueInSelector || metav1validation.LabelSelectorHasInvalidLabelValue(old.Spec.Selector)
		return appsvalidation.ValidateDaemonSetUpdate(ds, old, opts)
	})
	validateDaemonSetStatus = upstreamValidateSubresource("status", upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, appsvalidation.ValidateDaemonSetStatusUpdate)

	warnDaemonSetCreate = upstreamWarnings(upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, func(ctx context.Context, ds *apps.DaemonSet) []string {
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &ds.Spec.Template, nil)
	})
	warnDaemonSetUpdate = upstreamWarningsOnUpdate(upappsv1.Convert_v1_DaemonSet_To_apps_DaemonSet, func(ctx context.Context, ds, old *apps.DaemonSet) []string {
		if ds.Spec.TemplateGeneration == old.Spec.TemplateGeneration {
			return nil
		}
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), &ds.Spec.Template, &old.Spec.Template)
	})
)
