package apiextensions

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// widgetCRD is the widgets.example.com CRD of cluster/testdata/crd.yaml,
// defaulted as the API server stores it.
func widgetCRD(tb testing.TB) *apiextensionsv1.CustomResourceDefinition {
	tb.Helper()
	yes := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ShortNames: []string{"wd"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Required: []string{"size"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":     {Type: "integer", Minimum: ptr.To(1.0), Maximum: ptr.To(10.0)},
							"color":    {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"red"`)}, {Raw: []byte(`"green"`)}, {Raw: []byte(`"blue"`)}}, Default: &apiextensionsv1.JSON{Raw: []byte(`"blue"`)}},
							"label":    {Type: "string", Pattern: "^[a-z]+$", MaxLength: ptr.To[int64](5)},
							"replicas": {Type: "integer", Minimum: ptr.To(0.0), Default: &apiextensionsv1.JSON{Raw: []byte(`1`)}},
							"extra":    {Type: "object", XPreserveUnknownFields: &yes},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"replicas": {Type: "integer"},
						}},
					},
				}},
			}},
		},
	}
	Default(crd)
	return crd
}

// mustSchema compiles the v1 schema of crd.
func mustSchema(tb testing.TB, crd *apiextensionsv1.CustomResourceDefinition) *Schema {
	tb.Helper()
	s, err := NewSchema(crd, "v1")
	if err != nil {
		tb.Fatalf("NewSchema: %v", err)
	}
	return s
}
