package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	upappsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Deployments is apps/v1 deployments. Its status changes only through
// deployments/status, its replicas also through deployments/scale; any
// change of spec or annotations bumps metadata.generation.
var Deployments = &Resource{
	Kind:        appsv1.SchemeGroupVersion.WithKind("Deployment"),
	Plural:      "deployments",
	Singular:    "deployment",
	ShortNames:  []string{"deploy"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &appsv1.Deployment{} },
	NewListFunc: func() runtime.Object { return &appsv1.DeploymentList{} },
	Status:      &DeploymentStatusStrategy,
	Scale:       deploymentScale,
	Table:       printers.Deployments,
	Default:     defaultDeployment,
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
		Validate:                 validateDeployment,
		ValidateUpdate:           validateDeploymentUpdate,
		WarningsOnCreate:         warnDeploymentCreate,
		WarningsOnUpdate:         warnDeploymentUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// DeploymentStatusStrategy is the strategy of deployments/status.
var DeploymentStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
		d.Spec, d.Labels = o.Spec, o.Labels
	},
	ValidateUpdate:           validateDeploymentStatus,
	AllowUnconditionalUpdate: true,
}

// ReplicaSets is apps/v1 replicasets, with status and scale as for
// deployments; a spec change bumps metadata.generation.
var ReplicaSets = &Resource{
	Kind:        appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
	Plural:      "replicasets",
	Singular:    "replicaset",
	ShortNames:  []string{"rs"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &appsv1.ReplicaSet{} },
	NewListFunc: func() runtime.Object { return &appsv1.ReplicaSetList{} },
	Status:      &ReplicaSetStatusStrategy,
	Scale:       replicaSetScale,
	Table:       printers.ReplicaSets,
	Default:     defaultReplicaSet,
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
		Validate:                 validateReplicaSet,
		ValidateUpdate:           validateReplicaSetUpdate,
		WarningsOnCreate:         warnReplicaSetCreate,
		WarningsOnUpdate:         warnReplicaSetUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// ReplicaSetStatusStrategy is the strategy of replicasets/status.
var ReplicaSetStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		rs, o := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
		rs.Spec, rs.Labels = o.Spec, o.Labels
	},
	ValidateUpdate:           validateReplicaSetStatus,
	AllowUnconditionalUpdate: true,
}

// The defaults and validation of deployments and replica sets are
// upstream's deploymentStrategy, rsStrategy and their status strategies
// (pkg/registry/apps/deployment and replicaset). The two kinds share the
// pod template and must default it alike, or the deployment controller
// sees its ReplicaSet's template differ from the Deployment's and makes
// another.
var (
	defaultDeployment  = upstreamDefaults(upappsv1.SetObjectDefaults_Deployment, upappsv1.Convert_v1_Deployment_To_apps_Deployment, upappsv1.Convert_apps_Deployment_To_v1_Deployment)
	validateDeployment = upstreamValidate(upappsv1.Convert_v1_Deployment_To_apps_Deployment, func(d *apps.Deployment) field.ErrorList {
		return appsvalidation.ValidateDeployment(d, podutil.GetValidationOptionsFromPodTemplate(&d.Spec.Template, nil))
	})
	validateDeploymentUpdate = upstreamValidateUpdate(upappsv1.Convert_v1_Deployment_To_apps_Deployment, func(d, old *apps.Deployment) field.ErrorList {
		return appsvalidation.ValidateDeploymentUpdate(d, old, podutil.GetValidationOptionsFromPodTemplate(&d.Spec.Template, &old.Spec.Template))
	})
	validateDeploymentStatus = upstreamValidateSubresource("status", upappsv1.Convert_v1_Deployment_To_apps_Deployment, appsvalidation.ValidateDeploymentStatusUpdate)

	defaultReplicaSet  = upstreamDefaults(upappsv1.SetObjectDefaults_ReplicaSet, upappsv1.Convert_v1_ReplicaSet_To_apps_ReplicaSet, upappsv1.Convert_apps_ReplicaSet_To_v1_ReplicaSet)
	validateReplicaSet = upstreamValidate(upappsv1.Convert_v1_ReplicaSet_To_apps_ReplicaSet, func(rs *apps.ReplicaSet) field.ErrorList {
		return appsvalidation.ValidateReplicaSet(rs, podutil.GetValidationOptionsFromPodTemplate(&rs.Spec.Template, nil))
	})
	validateReplicaSetUpdate = upstreamValidateUpdate(upappsv1.Convert_v1_ReplicaSet_To_apps_ReplicaSet, func(rs, old *apps.ReplicaSet) field.ErrorList {
		return appsvalidation.ValidateReplicaSetUpdate(rs, old, podutil.GetValidationOptionsFromPodTemplate(&rs.Spec.Template, &old.Spec.Template))
	})
	validateReplicaSetStatus = upstreamValidateSubresource("status", upappsv1.Convert_v1_ReplicaSet_To_apps_ReplicaSet, appsvalidation.ValidateReplicaSetStatusUpdate)
)
