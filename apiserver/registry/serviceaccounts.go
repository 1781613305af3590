package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ServiceAccounts is the core/v1 serviceaccounts resource: plain storage
// with upstream's name rule. kubesim does not serve serviceaccounts/token
// (TokenRequest) nor create a default ServiceAccount per namespace: both
// come with the controller manager.
var ServiceAccounts = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("ServiceAccount"),
	Plural:       "serviceaccounts",
	Singular:     "serviceaccount",
	ShortNames:   []string{"sa"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.ServiceAccount{} },
	NewListFunc:  func() runtime.Object { return &corev1.ServiceAccountList{} },
	Table:        printers.ServiceAccounts,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy:     Strategy{AllowUnconditionalUpdate: true},
}
