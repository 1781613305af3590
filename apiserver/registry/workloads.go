package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Upstream's apps/v1 defaults for a Deployment.
const (
	DefaultRevisionHistoryLimit    = 10
	DefaultProgressDeadlineSeconds = 600
)

// defaultMaxSurgeUnavailable is the default of maxSurge and maxUnavailable.
var defaultMaxSurgeUnavailable = intstr.FromString("25%")

// Deployments is apps/v1 deployments. Its status changes only through
// deployments/status, its replicas also through deployments/scale; any
// change of spec or annotations bumps metadata.generation.
var Deployments = &Resource{
	Kind:         appsv1.SchemeGroupVersion.WithKind("Deployment"),
	Plural:       "deployments",
	Singular:     "deployment",
	ShortNames:   []string{"deploy"},
	Categories:   []string{"all"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &appsv1.Deployment{} },
	NewListFunc:  func() runtime.Object { return &appsv1.DeploymentList{} },
	Status:       &DeploymentStatusStrategy,
	Scale:        deploymentScale,
	Table:        printers.Deployments,
	Default:      defaultDeployment,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			d := obj.(*appsv1.Deployment)
			d.Status, d.Generation = appsv1.DeploymentStatus{}, 1
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
			d.Status = o.Status
			if !apiequality.Semantic.DeepEqual(d.Spec, o.Spec) || !apiequality.Semantic.DeepEqual(d.Annotations, o.Annotations) {
				d.Generation = o.Generation + 1
			}
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			return validateDeploymentSpec(&obj.(*appsv1.Deployment).Spec)
		},
		ValidateUpdate:           validateDeploymentUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// DeploymentStatusStrategy is the strategy of deployments/status.
var DeploymentStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
		d.Spec, d.Labels = o.Spec, o.Labels
	},
	AllowUnconditionalUpdate: true,
}

// ReplicaSets is apps/v1 replicasets, with status and scale as for
// deployments; a spec change bumps metadata.generation.
var ReplicaSets = &Resource{
	Kind:         appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
	Plural:       "replicasets",
	Singular:     "replicaset",
	ShortNames:   []string{"rs"},
	Categories:   []string{"all"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &appsv1.ReplicaSet{} },
	NewListFunc:  func() runtime.Object { return &appsv1.ReplicaSetList{} },
	Status:       &ReplicaSetStatusStrategy,
	Scale:        replicaSetScale,
	Table:        printers.ReplicaSets,
	Default:      defaultReplicaSet,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			rs := obj.(*appsv1.ReplicaSet)
			rs.Status, rs.Generation = appsv1.ReplicaSetStatus{}, 1
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			rs, o := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
			rs.Status = o.Status
			if !apiequality.Semantic.DeepEqual(rs.Spec, o.Spec) {
				rs.Generation = o.Generation + 1
			}
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			rs := obj.(*appsv1.ReplicaSet)
			return validateReplicated(rs.Spec.Replicas, rs.Spec.Selector, &rs.Spec.Template, field.NewPath("spec"), "replicaset")
		},
		ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
			rs, o := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
			errs := validateReplicated(rs.Spec.Replicas, rs.Spec.Selector, &rs.Spec.Template, field.NewPath("spec"), "replicaset")
			return append(errs, immutableSelector(rs.Spec.Selector, o.Spec.Selector)...)
		},
		AllowUnconditionalUpdate: true,
	},
}

// ReplicaSetStatusStrategy is the strategy of replicasets/status.
var ReplicaSetStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		rs, o := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
		rs.Spec, rs.Labels = o.Spec, o.Labels
	},
	AllowUnconditionalUpdate: true,
}

// defaultDeployment fills in upstream's apps/v1 defaults.
func defaultDeployment(obj runtime.Object) []string {
	s := &obj.(*appsv1.Deployment).Spec
	var d defaulted
	if s.Replicas == nil {
		one := int32(1)
		s.Replicas = &one
		d.add("spec.replicas", one)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		d.add("spec.strategy.type", s.Strategy.Type)
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		ru := s.Strategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			v := defaultMaxSurgeUnavailable
			ru.MaxUnavailable = &v
			d.add("spec.strategy.rollingUpdate.maxUnavailable", v)
		}
		if ru.MaxSurge == nil {
			v := defaultMaxSurgeUnavailable
			ru.MaxSurge = &v
			d.add("spec.strategy.rollingUpdate.maxSurge", v)
		}
	}
	if s.RevisionHistoryLimit == nil {
		v := int32(DefaultRevisionHistoryLimit)
		s.RevisionHistoryLimit = &v
		d.add("spec.revisionHistoryLimit", v)
	}
	if s.ProgressDeadlineSeconds == nil {
		v := int32(DefaultProgressDeadlineSeconds)
		s.ProgressDeadlineSeconds = &v
		d.add("spec.progressDeadlineSeconds", v)
	}
	return append(d, defaultTemplate(&s.Template)...)
}

// defaultReplicaSet fills in replicas and the template's defaults.
func defaultReplicaSet(obj runtime.Object) []string {
	s := &obj.(*appsv1.ReplicaSet).Spec
	var d defaulted
	if s.Replicas == nil {
		one := int32(1)
		s.Replicas = &one
		d.add("spec.replicas", one)
	}
	return append(d, defaultTemplate(&s.Template)...)
}

// defaultTemplate applies a pod's defaults to a pod template.
func defaultTemplate(t *corev1.PodTemplateSpec) []string {
	p := &corev1.Pod{ObjectMeta: t.ObjectMeta, Spec: t.Spec}
	set := DefaultPod(p)
	t.Spec = p.Spec
	out := make([]string, len(set))
	for i, s := range set {
		out[i] = "spec.template." + s
	}
	return out
}

// validateDeploymentSpec is upstream's ValidateDeploymentSpec.
func validateDeploymentSpec(s *appsv1.DeploymentSpec) field.ErrorList {
	p := field.NewPath("spec")
	errs := validateReplicated(s.Replicas, s.Selector, &s.Template, p, "deployment")
	errs = append(errs, validateDeploymentStrategy(&s.Strategy, p.Child("strategy"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*s.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	errs = append(errs, validation.ValidateNonnegativeField(int64(s.MinReadySeconds), p.Child("minReadySeconds"))...)
	if s.ProgressDeadlineSeconds != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*s.ProgressDeadlineSeconds), p.Child("progressDeadlineSeconds"))...)
		if *s.ProgressDeadlineSeconds <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(p.Child("progressDeadlineSeconds"), *s.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateDeploymentUpdate(obj, old runtime.Object) field.ErrorList {
	d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	errs := validateDeploymentSpec(&d.Spec)
	return append(errs, immutableSelector(d.Spec.Selector, o.Spec.Selector)...)
}

// immutableSelector: apps/v1 selectors may not change.
func immutableSelector(sel, old *metav1.LabelSelector) field.ErrorList {
	return validation.ValidateImmutableField(sel, old, field.NewPath("spec", "selector"))
}

// validateReplicated checks what deployments and replica sets share:
// replicas, a non-empty selector the template's labels match, and a pod
// template that restarts always.
func validateReplicated(replicas *int32, sel *metav1.LabelSelector, t *corev1.PodTemplateSpec, p *field.Path, what string) field.ErrorList {
	var errs field.ErrorList
	if replicas != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*replicas), p.Child("replicas"))...)
	}
	if sel == nil {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))...)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(p.Child("selector"), sel, "empty selector is invalid for "+what))
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return append(errs, field.Invalid(p.Child("selector"), sel, "invalid label selector"))
	}
	tp := p.Child("template")
	if !selector.Empty() && !selector.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, metav1validation.ValidateLabels(t.Labels, tp.Child("metadata", "labels"))...)
	errs = append(errs, validatePodSpec(&t.Spec, tp.Child("spec"), podRulesFor(nil))...)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// validateDeploymentStrategy is upstream's: RollingUpdate with its
// parameters, or Recreate without them.
func validateDeploymentStrategy(st *appsv1.DeploymentStrategy, p *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			return nil
		}
		return validateRollingUpdate(st.RollingUpdate, p.Child("rollingUpdate"))
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), st.Type, []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

func validateRollingUpdate(ru *appsv1.RollingUpdateDeployment, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	surge, unavailable := intOrPercent(ru.MaxSurge), intOrPercent(ru.MaxUnavailable)
	for _, v := range []struct {
		name string
		val  *intstr.IntOrString
	}{{"maxUnavailable", ru.MaxUnavailable}, {"maxSurge", ru.MaxSurge}} {
		if v.val == nil {
			continue
		}
		errs = append(errs, validatePositiveIntOrPercent(*v.val, p.Child(v.name))...)
	}
	if ru.MaxUnavailable != nil && ru.MaxUnavailable.Type == intstr.String && unavailable > 100 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), ru.MaxUnavailable, "must not be greater than 100%"))
	}
	if surge == 0 && unavailable == 0 {
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), ru.MaxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	return errs
}

// intOrPercent is the number (or percentage) an int-or-string holds.
func intOrPercent(v *intstr.IntOrString) int {
	if v == nil {
		return 0
	}
	if v.Type == intstr.Int {
		return v.IntValue()
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	if err != nil {
		return -1
	}
	return n
}

func validatePositiveIntOrPercent(v intstr.IntOrString, p *field.Path) field.ErrorList {
	if v.Type == intstr.String {
		if _, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, false); err != nil {
			return field.ErrorList{field.Invalid(p, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")}
		}
		return nil
	}
	return validation.ValidateNonnegativeField(int64(v.IntValue()), p)
}
