package registry

import (
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// APIServices is apiregistration.k8s.io/v1 apiservices, served by the
// aggregator of the delegation chain and stored, as upstream, under
// /registry/apiregistration.k8s.io/apiservices/.
var APIServices = &Resource{
	Kind:         apiregistrationv1.SchemeGroupVersion.WithKind("APIService"),
	Plural:       "apiservices",
	Singular:     "apiservice",
	Categories:   []string{"api-extensions"},
	KeyPrefix:    "apiregistration.k8s.io/apiservices",
	NewFunc:      func() runtime.Object { return &apiregistrationv1.APIService{} },
	NewListFunc:  func() runtime.Object { return &apiregistrationv1.APIServiceList{} },
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			obj.(*apiregistrationv1.APIService).Status = apiregistrationv1.APIServiceStatus{}
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			obj.(*apiregistrationv1.APIService).Status = old.(*apiregistrationv1.APIService).Status
		},
	},
}

// APIServiceStatusStrategy serves apiservices/status: only the status
// changes.
var APIServiceStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		a, o := obj.(*apiregistrationv1.APIService), old.(*apiregistrationv1.APIService)
		a.Spec = o.Spec
		a.Labels, a.Annotations = o.Labels, o.Annotations
	},
}
