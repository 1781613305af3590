package registry

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"

	"github.com/kubesim/kubesim/apiserver/aggregator"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// APIServices is apiregistration.k8s.io/v1 apiservices, served by the
// aggregator of the delegation chain and stored, as upstream, under
// /registry/apiregistration.k8s.io/apiservices/. Its strategy is
// upstream's: the status is the status subresource's (reset on create;
// a local APIService, with no spec.service, starts Available=True reason
// Local), and validation is aggregator.ValidateAPIService.
var APIServices = &Resource{
	Kind:         apiregistrationv1.SchemeGroupVersion.WithKind("APIService"),
	Plural:       "apiservices",
	Singular:     "apiservice",
	Categories:   []string{"api-extensions"},
	KeyPrefix:    "apiregistration.k8s.io/apiservices",
	NewFunc:      func() runtime.Object { return &apiregistrationv1.APIService{} },
	NewListFunc:  func() runtime.Object { return &apiregistrationv1.APIServiceList{} },
	Status:       &APIServiceStatusStrategy,
	Table:        printers.APIServices,
	ValidateName: aggregator.ValidateName,
	Default: func(obj runtime.Object) []string {
		return aggregator.Default(obj.(*apiregistrationv1.APIService))
	},
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			a := obj.(*apiregistrationv1.APIService)
			a.Status = apiregistrationv1.APIServiceStatus{}
			if a.Spec.Service == nil {
				helper.SetAPIServiceCondition(a, helper.NewLocalAvailableAPIServiceCondition())
			}
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			obj.(*apiregistrationv1.APIService).Status = old.(*apiregistrationv1.APIService).Status
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			return aggregator.ValidateAPIService(obj.(*apiregistrationv1.APIService))
		},
		ValidateUpdate: func(obj, _ runtime.Object) field.ErrorList {
			return aggregator.ValidateAPIService(obj.(*apiregistrationv1.APIService))
		},
	},
}

// APIServiceStatusStrategy serves apiservices/status: only the status
// changes (spec, labels, annotations, finalizers and owner references are
// kept, as upstream's status strategy keeps them), and each condition's
// status must be True, False or Unknown.
var APIServiceStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		a, o := obj.(*apiregistrationv1.APIService), old.(*apiregistrationv1.APIService)
		a.Spec = o.Spec
		a.Labels, a.Annotations = o.Labels, o.Annotations
		a.Finalizers, a.OwnerReferences = o.Finalizers, o.OwnerReferences
	},
	ValidateUpdate: func(obj, _ runtime.Object) field.ErrorList {
		return aggregator.ValidateAPIServiceStatus(obj.(*apiregistrationv1.APIService))
	},
}
