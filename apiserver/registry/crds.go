package registry

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
)

// CustomResourceDefinitions is apiextensions.k8s.io/v1
// customresourcedefinitions, served by the apiextensions server of the
// delegation chain and stored, as upstream, under
// /registry/apiextensions.k8s.io/customresourcedefinitions/.
var CustomResourceDefinitions = &Resource{
	Kind:         apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"),
	Plural:       "customresourcedefinitions",
	Singular:     "customresourcedefinition",
	ShortNames:   []string{"crd", "crds"},
	Categories:   []string{"api-extensions"},
	KeyPrefix:    "apiextensions.k8s.io/customresourcedefinitions",
	NewFunc:      func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
	NewListFunc:  func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			crd := obj.(*apiextensionsv1.CustomResourceDefinition)
			crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
			crd.Generation = 1
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			crd, o := obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition)
			crd.Status = o.Status
		},
	},
}

// CustomResourceDefinitionStatusStrategy serves
// customresourcedefinitions/status: only the status changes.
var CustomResourceDefinitionStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		crd, o := obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition)
		crd.Spec = o.Spec
		crd.Labels, crd.Annotations, crd.Finalizers = o.Labels, o.Annotations, o.Finalizers
	},
}
