package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// LimitRanges is core/v1 limitranges (limits), with upstream's strategy
// (pkg/registry/core/limitrange): the v1 defaults (a Container item's
// default limits from its max, its default requests from its default
// limits), upstream's validation, and a create or update of a name that
// does not exist allowed through PUT. The LimitRanger admission plugin
// reads them. It has no printer upstream: NAME CREATED AT.
var LimitRanges = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("LimitRange"),
	Plural:      "limitranges",
	Singular:    "limitrange",
	ShortNames:  []string{"limits"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &corev1.LimitRange{} },
	NewListFunc: func() runtime.Object { return &corev1.LimitRangeList{} },
	Table:       printers.Default,
	Default:     upstreamDefaults(upcorev1.SetObjectDefaults_LimitRange, upcorev1.Convert_v1_LimitRange_To_core_LimitRange, upcorev1.Convert_core_LimitRange_To_v1_LimitRange),
	Strategy:    upstreamStrategy(limitrange.Strategy, "", upcorev1.Convert_v1_LimitRange_To_core_LimitRange, upcorev1.Convert_core_LimitRange_To_v1_LimitRange),
}
