package apiextensions

import (
	"fmt"

	internal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// scheme converts the published v1 types to the internal ones that
// upstream's validation and schema code take.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(internal.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return s
}()

// toInternal converts a v1 CRD (after v1 defaulting, as the API server
// stores it) to the internal type.
func toInternal(crd *apiextensionsv1.CustomResourceDefinition) (*internal.CustomResourceDefinition, error) {
	out := &internal.CustomResourceDefinition{}
	if err := scheme.Convert(crd, out, nil); err != nil {
		return nil, fmt.Errorf("convert CustomResourceDefinition %s: %w", crd.Name, err)
	}
	return out, nil
}

// schemaToInternal converts one v1 OpenAPI v3 schema to the internal type.
func schemaToInternal(in *apiextensionsv1.JSONSchemaProps) (*internal.JSONSchemaProps, error) {
	out := &internal.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(in, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Default fills in the defaults of the v1 API (conversion strategy None,
// the list kind and singular name...), as kube-apiserver does when it
// decodes a CRD.
func Default(crd *apiextensionsv1.CustomResourceDefinition) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
}
