package apiextensions

import (
	"context"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(crd *apiextensionsv1.CustomResourceDefinition)
		// want are the errors, as a 422's causes print them; an error
		// quoting a whole Go value is given as its start and its end.
		want []string
	}{
		{"valid", func(*apiextensionsv1.CustomResourceDefinition) {}, nil},
		{"name not plural.group", func(crd *apiextensionsv1.CustomResourceDefinition) { crd.Name = "widget.example.com" },
			[]string{`metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group`}},
		{"no storage version", func(crd *apiextensionsv1.CustomResourceDefinition) { crd.Spec.Versions[0].Storage = false },
			[]string{`spec.versions: Invalid value: `, `must have exactly one version marked as storage version`}},
		{"no schema", func(crd *apiextensionsv1.CustomResourceDefinition) { crd.Spec.Versions[0].Schema = nil },
			[]string{`spec.versions[0].schema.openAPIV3Schema: Required value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := widgetCRD(t)
			tt.change(crd)
			var got []string
			for _, e := range Validate(context.Background(), crd) {
				got = append(got, e.Error())
			}
			if len(tt.want) == 2 && len(got) == 1 && strings.HasPrefix(got[0], tt.want[0]) && strings.HasSuffix(got[0], tt.want[1]) {
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
