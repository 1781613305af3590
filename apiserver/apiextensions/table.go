package apiextensions

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TableConvertor turns custom resources (one, or a list) into the Table
// kubectl get prints.
type TableConvertor func(obj runtime.Object, noHeaders bool) (*metav1.Table, error)

// NewTableConvertor returns the Table convertor of version of crd, with
// upstream's columns: Name, then the version's additionalPrinterColumns,
// or, when it declares none, Age (metadata.creationTimestamp) alone. A
// CRD that declares columns and no Age column gets none, as upstream.
func NewTableConvertor(crd *apiextensionsv1.CustomResourceDefinition, version string) (TableConvertor, error) {
	var cols []apiextensionsv1.CustomResourceColumnDefinition
	found := false
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			cols, found = v.AdditionalPrinterColumns, true
		}
	}
	if !found {
		return nil, fmt.Errorf("CustomResourceDefinition %s has no version %q", crd.Name, version)
	}
	if len(cols) == 0 {
		cols = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Age", Type: "date",
			Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"}}
	}
	tc, err := tableconvertor.New(cols)
	if err != nil {
		return nil, err
	}
	return func(obj runtime.Object, noHeaders bool) (*metav1.Table, error) {
		return tc.ConvertToTable(context.Background(), obj, &metav1.TableOptions{NoHeaders: noHeaders})
	}, nil
}
