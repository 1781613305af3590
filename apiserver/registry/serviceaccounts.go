package registry

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ServiceAccounts is the core/v1 serviceaccounts resource: plain storage
// with upstream's validation (pkg/registry/core/serviceaccount). kubesim does not serve serviceaccounts/token
// (TokenRequest) nor create a default ServiceAccount per namespace: both
// come with the controller manager.
var ServiceAccounts = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("ServiceAccount"),
	Plural:              "serviceaccounts",
	ReturnDeletedObject: true,
	Singular:            "serviceaccount",
	ShortNames:          []string{"sa"},
	Namespaced:          true,
	NewFunc:             func() runtime.Object { return &corev1.ServiceAccount{} },
	NewListFunc:         func() runtime.Object { return &corev1.ServiceAccountList{} },
	Table:               printers.ServiceAccounts,
	Strategy: Strategy{
		Validate:                 upstreamValidate(upcorev1.Convert_v1_ServiceAccount_To_core_ServiceAccount, corevalidation.ValidateServiceAccount),
		ValidateUpdate:           upstreamValidateUpdate(upcorev1.Convert_v1_ServiceAccount_To_core_ServiceAccount, corevalidation.ValidateServiceAccountUpdate),
		WarningsOnCreate:         func(_ context.Context, obj runtime.Object) []string { return warnServiceAccount(obj, nil) },
		WarningsOnUpdate:         func(_ context.Context, obj, old runtime.Object) []string { return warnServiceAccount(obj, old) },
		AllowUnconditionalUpdate: true,
	},
}
