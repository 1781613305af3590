package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// PodTemplates is the core/v1 podtemplates resource: a pod template kept
// as an object of its own (no controller acts on it). A change to its
// template bumps its generation.
var PodTemplates = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("PodTemplate"),
	Plural:              "podtemplates",
	Singular:            "podtemplate",
	Namespaced:          true,
	ReturnDeletedObject: true,
	NewFunc:             func() runtime.Object { return &corev1.PodTemplate{} },
	NewListFunc:         func() runtime.Object { return &corev1.PodTemplateList{} },
	Table:               printers.PodTemplates,
	Default:             defaultPodTemplate,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) { obj.(*corev1.PodTemplate).Generation = 1 },
		PrepareForUpdate: func(obj, old runtime.Object) {
			t, o := obj.(*corev1.PodTemplate), old.(*corev1.PodTemplate)
			if !apiequality.Semantic.DeepEqual(t.Template, o.Template) {
				t.Generation = o.Generation + 1
			}
		},
		Validate:                 validatePodTemplate,
		ValidateUpdate:           validatePodTemplateUpdate,
		WarningsOnCreate:         warnPodTemplateCreate,
		WarningsOnUpdate:         warnPodTemplateUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// The defaults, validation and warnings of pod templates are upstream's
// podTemplateStrategy's (pkg/registry/core/podtemplate/strategy.go).
var (
	defaultPodTemplate  = upstreamDefaults(upcorev1.SetObjectDefaults_PodTemplate, upcorev1.Convert_v1_PodTemplate_To_core_PodTemplate, upcorev1.Convert_core_PodTemplate_To_v1_PodTemplate)
	validatePodTemplate = upstreamValidate(upcorev1.Convert_v1_PodTemplate_To_core_PodTemplate, func(t *core.PodTemplate) field.ErrorList {
		return corevalidation.ValidatePodTemplate(t, podutil.GetValidationOptionsFromPodTemplate(&t.Template, nil))
	})
	validatePodTemplateUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_PodTemplate_To_core_PodTemplate, func(t, old *core.PodTemplate) field.ErrorList {
		return corevalidation.ValidatePodTemplateUpdate(t, old, podutil.GetValidationOptionsFromPodTemplate(&t.Template, &old.Template))
	})
	warnPodTemplateCreate = upstreamWarnings(upcorev1.Convert_v1_PodTemplate_To_core_PodTemplate, func(ctx context.Context, t *core.PodTemplate) []string {
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("template"), &t.Template, nil)
	})
	warnPodTemplateUpdate = upstreamWarningsOnUpdate(upcorev1.Convert_v1_PodTemplate_To_core_PodTemplate, func(ctx context.Context, t, old *core.PodTemplate) []string {
		if t.Generation == old.Generation {
			return nil
		}
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("template"), &t.Template, &old.Template)
	})
)
