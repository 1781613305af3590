package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upappsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ControllerRevisions is apps/v1 controllerrevisions: the immutable
// snapshots of a StatefulSet's or DaemonSet's pod template that their
// controllers roll between. Its data never changes once written.
var ControllerRevisions = &Resource{
	Kind:        appsv1.SchemeGroupVersion.WithKind("ControllerRevision"),
	Plural:      "controllerrevisions",
	Singular:    "controllerrevision",
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &appsv1.ControllerRevision{} },
	NewListFunc: func() runtime.Object { return &appsv1.ControllerRevisionList{} },
	Table:       printers.ControllerRevisions,
	Strategy: Strategy{
		Validate:                 validateControllerRevisionCreate,
		ValidateUpdate:           validateControllerRevisionUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// The validation of controller revisions is upstream's strategy's
// (pkg/registry/apps/controllerrevision/strategy.go).
var (
	validateControllerRevisionCreate = upstreamValidate(upappsv1.Convert_v1_ControllerRevision_To_apps_ControllerRevision, appsvalidation.ValidateControllerRevisionCreate)
	validateControllerRevisionUpdate = upstreamValidateUpdate(upappsv1.Convert_v1_ControllerRevision_To_apps_ControllerRevision, appsvalidation.ValidateControllerRevisionUpdate)
)
