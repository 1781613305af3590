package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ConfigMaps is the core/v1 configmaps resource. A ConfigMap holds at
// most corev1.MaxSecretSize (1 MiB) of data and binaryData together; one
// marked immutable keeps its data for good.
var ConfigMaps = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	Plural:      "configmaps",
	Singular:    "configmap",
	ShortNames:  []string{"cm"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &corev1.ConfigMap{} },
	NewListFunc: func() runtime.Object { return &corev1.ConfigMapList{} },
	Table:       printers.ConfigMaps,
	Default:     defaultConfigMap,
	Strategy: Strategy{
		Validate:                 validateConfigMap,
		ValidateUpdate:           validateConfigMapUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// The defaults and validation of config maps are upstream's strategy's
// (pkg/registry/core/configmap/strategy.go).
var (
	defaultConfigMap        = upstreamDefaults(upcorev1.SetObjectDefaults_ConfigMap, upcorev1.Convert_v1_ConfigMap_To_core_ConfigMap, upcorev1.Convert_core_ConfigMap_To_v1_ConfigMap)
	validateConfigMap       = upstreamValidate(upcorev1.Convert_v1_ConfigMap_To_core_ConfigMap, corevalidation.ValidateConfigMap)
	validateConfigMapUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_ConfigMap_To_core_ConfigMap, corevalidation.ValidateConfigMapUpdate)
)
