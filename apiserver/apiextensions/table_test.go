package apiextensions

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestTableConvertorColumns(t *testing.T) {
	withColumns := widgetCRD(t)
	withColumns.Spec.Versions[0].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
	}
	tests := []struct {
		name     string
		crd      *apiextensionsv1.CustomResourceDefinition
		wantCols string
		wantRow  string
	}{
		{"no columns declared: Name and Age", widgetCRD(t), "Name,Age", "w"},
		{"declared columns replace Age", withColumns, "Name,Size", "w,3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			convert, err := NewTableConvertor(tt.crd, "v1")
			if err != nil {
				t.Fatal(err)
			}
			list := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{*widget(t, `{"size":3}`)}}
			table, err := convert(list, false)
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, c := range table.ColumnDefinitions {
				cols = append(cols, c.Name)
			}
			if got := strings.Join(cols, ","); got != tt.wantCols {
				t.Errorf("columns = %s, want %s", got, tt.wantCols)
			}
			if len(table.Rows) != 1 {
				t.Fatalf("rows = %v, want one", table.Rows)
			}
			// The cells named by wantRow (the Age of an object without a
			// creationTimestamp is left out).
			var cells []string
			for _, c := range table.Rows[0].Cells[:len(strings.Split(tt.wantRow, ","))] {
				cells = append(cells, fmt.Sprint(c))
			}
			if got := strings.Join(cells, ","); got != tt.wantRow {
				t.Errorf("row = %s, want %s", got, tt.wantRow)
			}
		})
	}
}

func TestOpenAPIDocument(t *testing.T) {
	doc, err := OpenAPIDocument([]*apiextensionsv1.CustomResourceDefinition{widgetCRD(t)}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := doc.Components.Schemas["com.example.v1.Widget"]
	if !ok {
		t.Fatalf("no com.example.v1.Widget among %d schemas", len(doc.Components.Schemas))
	}
	if _, ok := s.Properties["spec"].Properties["size"]; !ok {
		t.Errorf("the Widget schema lacks spec.size: %v", s.Properties["spec"])
	}
	if gvk := s.Extensions["x-kubernetes-group-version-kind"]; gvk == nil {
		t.Errorf("the Widget schema lacks x-kubernetes-group-version-kind")
	}
	item := doc.Paths.Paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]
	if item == nil || item.Patch == nil {
		t.Fatalf("no PATCH on the widget's path")
	}
	found := false
	for _, p := range item.Patch.Parameters {
		found = found || p.Name == "fieldValidation"
	}
	if !found {
		t.Errorf("PATCH lacks the fieldValidation parameter kubectl looks for")
	}
}
