package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Endpoints is the core/v1 endpoints resource: plain storage with
// upstream's validation of addresses and ports. The Endpoints of a Service
// are written by the endpoints controller (kubesim's controller manager,
// when it runs) and, for the kubernetes Service, by the API servers'
// lease endpoint reconciler (WriteKubernetesEndpoints).
var Endpoints = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("Endpoints"),
	Plural:      "endpoints",
	Singular:    "endpoints",
	ShortNames:  []string{"ep"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &corev1.Endpoints{} },
	NewListFunc: func() runtime.Object { return &corev1.EndpointsList{} },
	Table:       printers.Endpoints,
	Default:     defaultEndpoints,
	Strategy: Strategy{
		Validate:                 validateEndpoints,
		ValidateUpdate:           validateEndpointsUpdate,
		WarningsOnCreate:         onCreate(warnEndpoints),
		WarningsOnUpdate:         onUpdate(warnEndpoints),
		AllowCreateOnUpdate:      true,
		AllowUnconditionalUpdate: true,
	},
}

// The defaults and validation of endpoints are upstream's strategy's
// (pkg/registry/core/endpoint/strategy.go).
var (
	defaultEndpoints        = upstreamDefaults(upcorev1.SetObjectDefaults_Endpoints, upcorev1.Convert_v1_Endpoints_To_core_Endpoints, upcorev1.Convert_core_Endpoints_To_v1_Endpoints)
	validateEndpoints       = upstreamValidate(upcorev1.Convert_v1_Endpoints_To_core_Endpoints, corevalidation.ValidateEndpointsCreate)
	validateEndpointsUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_Endpoints_To_core_Endpoints, corevalidation.ValidateEndpointsUpdate)
)
