package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationvalidation "k8s.io/kube-aggregator/pkg/apis/apiregistration/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// APIServices is apiregistration.k8s.io/v1 apiservices, served by the
// aggregator of the delegation chain and stored, as upstream, under
// /registry/apiregistration.k8s.io/apiservices/. Its strategy is
// upstream's: the status is the status subresource's (reset on create;
// a local APIService, with no spec.service, starts Available=True reason
// Local), and so are defaults and validation.
var APIServices = &Resource{
	Kind:        apiregistrationv1.SchemeGroupVersion.WithKind("APIService"),
	Plural:      "apiservices",
	Singular:    "apiservice",
	Categories:  []string{"api-extensions"},
	KeyPrefix:   "apiregistration.k8s.io/apiservices",
	NewFunc:     func() runtime.Object { return &apiregistrationv1.APIService{} },
	NewListFunc: func() runtime.Object { return &apiregistrationv1.APIServiceList{} },
	Status:      &APIServiceStatusStrategy,
	Table:       printers.APIServices,
	Default:     defaultAPIService,
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
		Validate:       validateAPIService,
		ValidateUpdate: validateAPIServiceUpdate,
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
	ValidateUpdate: validateAPIServiceStatus,
}

// The defaults (a service's port 443) and validation of APIServices are
// kube-aggregator's apiServerStrategy and apiServerStatusStrategy
// (k8s.io/kube-aggregator/pkg/registry/apiservice/strategy.go).
var (
	defaultAPIService  = upstreamDefaults(apiregistrationv1.SetObjectDefaults_APIService, apiregistrationv1.Convert_v1_APIService_To_apiregistration_APIService, apiregistrationv1.Convert_apiregistration_APIService_To_v1_APIService)
	validateAPIService = upstreamValidate(apiregistrationv1.Convert_v1_APIService_To_apiregistration_APIService, func(a *apiregistration.APIService) field.ErrorList {
		return apiregistrationvalidation.ValidateAPIService(context.Background(), a)
	})
	validateAPIServiceUpdate = upstreamValidateUpdate(apiregistrationv1.Convert_v1_APIService_To_apiregistration_APIService, func(a, old *apiregistration.APIService) field.ErrorList {
		return apiregistrationvalidation.ValidateAPIServiceUpdate(context.Background(), a, old)
	})
	validateAPIServiceStatus = upstreamValidateSubresource("status", apiregistrationv1.Convert_v1_APIService_To_apiregistration_APIService, func(a, old *apiregistration.APIService) field.ErrorList {
		return apiregistrationvalidation.ValidateAPIServiceStatusUpdate(context.Background(), a, old)
	})
)
