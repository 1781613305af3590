package registry

import (
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	updiscoveryv1 "k8s.io/kubernetes/pkg/apis/discovery/v1"
	discoveryvalidation "k8s.io/kubernetes/pkg/apis/discovery/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// EndpointSlices is discovery.k8s.io/v1 endpointslices: plain storage
// with upstream's defaults and validation. The
// endpointslice controller (kubesim's controller manager, when it runs)
// writes them.
var EndpointSlices = &Resource{
	Kind:        discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"),
	Plural:      "endpointslices",
	Singular:    "endpointslice",
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &discoveryv1.EndpointSlice{} },
	NewListFunc: func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
	Table:       printers.EndpointSlices,
	Default:     defaultEndpointSlice,
	Strategy: Strategy{
		// As upstream's strategy: generation 1 at create, bumped by an
		// update that changes anything but metadata (labels count). The
		// endpointslice controller tells its own writes by it.
		PrepareForCreate: func(obj runtime.Object) { obj.(*discoveryv1.EndpointSlice).Generation = 1 },
		PrepareForUpdate: func(obj, old runtime.Object) {
			s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
			sc, oc := *s, *o
			sc.ObjectMeta, oc.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}
			if !apiequality.Semantic.DeepEqual(sc, oc) || !apiequality.Semantic.DeepEqual(s.Labels, o.Labels) {
				s.Generation = o.Generation + 1
			}
		},
		Validate:                 validateEndpointSlice,
		ValidateUpdate:           validateEndpointSliceUpdate,
		WarningsOnCreate:         warnEndpointSliceCreate,
		WarningsOnUpdate:         warnEndpointSliceUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// The defaults and validation of endpoint slices are upstream's
// strategy's (pkg/registry/discovery/endpointslice/strategy.go).
var (
	defaultEndpointSlice        = upstreamDefaults(updiscoveryv1.SetObjectDefaults_EndpointSlice, updiscoveryv1.Convert_v1_EndpointSlice_To_discovery_EndpointSlice, updiscoveryv1.Convert_discovery_EndpointSlice_To_v1_EndpointSlice)
	validateEndpointSlice       = upstreamValidate(updiscoveryv1.Convert_v1_EndpointSlice_To_discovery_EndpointSlice, discoveryvalidation.ValidateEndpointSliceCreate)
	validateEndpointSliceUpdate = upstreamValidateUpdate(updiscoveryv1.Convert_v1_EndpointSlice_To_discovery_EndpointSlice, discoveryvalidation.ValidateEndpointSliceUpdate)
)
