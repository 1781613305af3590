package apiextensions

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/kube-openapi/pkg/spec3"
)

// OpenAPIDocument builds the OpenAPI v3 document of one group-version
// from the CRDs that serve it, as upstream's OpenAPI controller does: for
// each CRD serving version, the kind's schema (its structural schema with
// ObjectMeta, x-kubernetes-group-version-kind), its list kind, and the
// paths of every verb with their query parameters (fieldValidation among
// them, which kubectl looks for before it lets the server validate). The
// documents of several CRDs of one group-version are merged.
func OpenAPIDocument(crds []*apiextensionsv1.CustomResourceDefinition, version string) (*spec3.OpenAPI, error) {
	var specs []*spec3.OpenAPI
	for _, crd := range crds {
		doc, err := builder.BuildOpenAPIV3(crd, version, builder.Options{V2: false, IncludeSelectableFields: true})
		if err != nil {
			return nil, err
		}
		specs = append(specs, doc)
	}
	if len(specs) == 1 {
		return specs[0], nil
	}
	return builder.MergeSpecsV3(specs...)
}
