package registry

import (
	"context"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/helper"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ReplicationControllers is core/v1 replicationcontrollers, on upstream's
// rcStrategy (pkg/registry/core/replicationcontroller/strategy.go): its
// status changes only through replicationcontrollers/status, its
// replicas also through replicationcontrollers/scale, and a change of
// its spec bumps metadata.generation. Lists select on status.replicas
// too. A delete orphans its pods unless the options ask otherwise (the
// default policy of upstream's strategy for core/v1). No controller
// acts on it in kubesim.
var ReplicationControllers = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("ReplicationController"),
	Plural:      "replicationcontrollers",
	Singular:    "replicationcontroller",
	ShortNames:  []string{"rc"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &corev1.ReplicationController{} },
	NewListFunc: func() runtime.Object { return &corev1.ReplicationControllerList{} },
	Status:      &ReplicationControllerStatusStrategy,
	Scale:       replicationControllerScale,
	Table:       printers.ReplicationControllers,
	Default:     defaultReplicationController,
	Fields: func(obj runtime.Object) fields.Set {
		rc := obj.(*corev1.ReplicationController)
		fs := defaultFields(rc)
		fs["status.replicas"] = strconv.Itoa(int(rc.Status.Replicas))
		return fs
	},
	FieldLabels:     []string{"metadata.name", "metadata.namespace", "status.replicas"},
	OrphanByDefault: true,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			rc := obj.(*corev1.ReplicationController)
			rc.Status, rc.Generation = corev1.ReplicationControllerStatus{}, 1
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			rc, o := obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController)
			rc.Status = o.Status
			if !apiequality.Semantic.DeepEqual(rc.Spec, o.Spec) {
				rc.Generation = o.Generation + 1
			}
		},
		Validate:                 validateReplicationController,
		ValidateUpdate:           validateReplicationControllerUpdate,
		WarningsOnCreate:         warnReplicationControllerCreate,
		WarningsOnUpdate:         warnReplicationControllerUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// ReplicationControllerStatusStrategy is the strategy of
// replicationcontrollers/status: it keeps the stored spec.
var ReplicationControllerStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.ReplicationController).Spec = old.(*corev1.ReplicationController).Spec
	},
	ValidateUpdate:           validateReplicationControllerStatus,
	AllowUnconditionalUpdate: true,
}

// replicationControllerScale is replicationcontrollers/scale: its
// selector, a map, reads as the equality-based selector upstream's
// labels.SelectorFromSet makes of it.
var replicationControllerScale = &Scale{
	Replicas: func(obj runtime.Object) (int32, int32, *metav1.LabelSelector) {
		rc := obj.(*corev1.ReplicationController)
		return replicasOf(rc.Spec.Replicas), rc.Status.Replicas, &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*corev1.ReplicationController).Spec.Replicas = &n },
}

// The defaults, validation and warnings of replication controllers are
// upstream's rcStrategy's and rcStatusStrategy's.
var (
	defaultReplicationController  = upstreamDefaults(upcorev1.SetObjectDefaults_ReplicationController, upcorev1.Convert_v1_ReplicationController_To_core_ReplicationController, upcorev1.Convert_core_ReplicationController_To_v1_ReplicationController)
	validateReplicationController = upstreamValidate(upcorev1.Convert_v1_ReplicationController_To_core_ReplicationController, func(rc *core.ReplicationController) field.ErrorList {
		return corevalidation.ValidateReplicationController(rc, podutil.GetValidationOptionsFromPodTemplate(rc.Spec.Template, nil))
	})
	validateReplicationControllerUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_ReplicationController_To_core_ReplicationController, func(rc, old *core.ReplicationController) field.ErrorList {
		errs := corevalidation.ValidateReplicationControllerUpdate(rc, old, podutil.GetValidationOptionsFromPodTemplate(rc.Spec.Template, old.Spec.Template))
		return append(errs, nonConvertibleErrors(rc, old)...)
	})
	validateReplicationControllerStatus = upstreamValidateSubresource("status", upcorev1.Convert_v1_ReplicationController_To_core_ReplicationController, corevalidation.ValidateReplicationControllerStatusUpdate)

	warnReplicationControllerCreate = upstreamWarnings(upcorev1.Convert_v1_ReplicationController_To_core_ReplicationController, func(ctx context.Context, rc *core.ReplicationController) []string {
		warnings := dnsLabelNameWarning(rc.Name, "Pod names and hostnames")
		return append(warnings, podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), rc.Spec.Template, nil)...)
	})
	warnReplicationControllerUpdate = upstreamWarningsOnUpdate(upcorev1.Convert_v1_ReplicationController_To_core_ReplicationController, func(ctx context.Context, rc, old *core.ReplicationController) []string {
		if rc.Generation == old.Generation {
			return nil
		}
		// Upstream passes the old template first and the new one second.
		return podutil.GetWarningsForPodTemplate(ctx, field.NewPath("spec", "template"), old.Spec.Template, rc.Spec.Template)
	})
)

// nonConvertibleErrors are the errors of rcStrategy.ValidateUpdate for
// the non-convertible.kubernetes.io/* annotations of old (fields an
// extensions/v1beta1 write could not convert): a selector so marked may
// not change; any other such field is reported unknown.
func nonConvertibleErrors(rc, old *core.ReplicationController) field.ErrorList {
	var errs field.ErrorList
	for key, value := range helper.NonConvertibleFields(old.Annotations) {
		parts := strings.Split(key, "/")
		if len(parts) != 2 {
			continue
		}
		switch broken := parts[1]; {
		case strings.Contains(broken, "selector"):
			if !apiequality.Semantic.DeepEqual(old.Spec.Selector, rc.Spec.Selector) {
				errs = append(errs, field.Invalid(field.NewPath("spec").Child("selector"), rc.Spec.Selector, "cannot update non-convertible selector"))
			}
		default:
			errs = append(errs, &field.Error{Type: field.ErrorTypeNotFound, BadValue: value, Field: broken, Detail: "unknown non-convertible field"})
		}
	}
	return errs
}
