package apiextensions

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func widget(tb testing.TB, spec string) *unstructured.Unstructured {
	tb.Helper()
	u := &unstructured.Unstructured{}
	body := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":` + spec + `}`
	// As the server decodes it: integers are int64.
	if err := u.UnmarshalJSON([]byte(body)); err != nil {
		tb.Fatalf("widget %s: %v", spec, err)
	}
	return u
}

func TestSchemaValidate(t *testing.T) {
	s := mustSchema(t, widgetCRD(t))
	tests := []struct {
		name string
		spec string
		want []string // the errors' texts, as a 422's causes print them
	}{
		{"valid", `{"size":3,"color":"red","label":"abc"}`, nil},
		{"wrong type", `{"size":"big"}`, []string{`spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`}},
		{"required", `{"color":"red"}`, []string{`spec.size: Required value`}},
		{"enum", `{"size":1,"color":"pink"}`, []string{`spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`}},
		{"maximum", `{"size":11}`, []string{`spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`}},
		{"minimum", `{"size":0}`, []string{`spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`}},
		{"pattern", `{"size":1,"label":"ABC"}`, []string{`spec.label: Invalid value: "ABC": spec.label in body should match '^[a-z]+$'`}},
		{"maxLength", `{"size":1,"label":"abcdefg"}`, []string{`spec.label: Too long: may not be more than 5 bytes`}},
		{"scale replicas negative", `{"size":1,"replicas":-1}`, []string{
			`spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`,
			`.spec.replicas: Invalid value: -1: should be a non-negative integer`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range s.Validate(context.Background(), widget(t, tt.spec)) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate(%s):\n got %q\nwant %q", tt.spec, got, tt.want)
			}
		})
	}
}

func TestSchemaValidateTypeMeta(t *testing.T) {
	s := mustSchema(t, widgetCRD(t))
	u := widget(t, `{"size":1}`)
	u.SetAPIVersion("example.com/v2")
	errs := s.Validate(context.Background(), u)
	if len(errs) != 1 || errs[0].Error() != `apiVersion: Invalid value: "example.com/v2": must be example.com/v1` {
		t.Errorf("Validate with apiVersion v2 = %v, want the apiVersion error alone", errs)
	}
}

func TestSchemaCoerceAndDefault(t *testing.T) {
	s := mustSchema(t, widgetCRD(t))
	tests := []struct {
		name        string
		spec        string
		track       bool
		wantUnknown []string
		wantSpec    string // after pruning and defaulting
		wantSet     []string
	}{
		{"defaults filled", `{"size":2}`, true, nil, `{"color":"blue","replicas":1,"size":2}`, []string{`spec.color="blue"`, `spec.replicas=1`}},
		{"default not over a value", `{"size":2,"color":"red","replicas":3}`, true, nil, `{"color":"red","replicas":3,"size":2}`, nil},
		{"unknown field pruned and reported", `{"size":2,"shape":"round"}`, true, []string{"spec.shape"}, `{"color":"blue","replicas":1,"size":2}`, []string{`spec.color="blue"`, `spec.replicas=1`}},
		{"unknown field pruned, not tracked", `{"size":2,"shape":"round"}`, false, nil, `{"color":"blue","replicas":1,"size":2}`, []string{`spec.color="blue"`, `spec.replicas=1`}},
		{"preserve-unknown-fields kept", `{"size":2,"extra":{"anything":[1,2]}}`, true, nil, `{"color":"blue","extra":{"anything":[1,2]},"replicas":1,"size":2}`, []string{`spec.color="blue"`, `spec.replicas=1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := widget(t, tt.spec)
			unknown, err := s.Coerce(u.Object, tt.track)
			if err != nil {
				t.Fatalf("Coerce: %v", err)
			}
			if !slices.Equal(unknown, tt.wantUnknown) {
				t.Errorf("unknown fields = %q, want %q", unknown, tt.wantUnknown)
			}
			set := s.Default(u.Object)
			if !slices.Equal(set, tt.wantSet) {
				t.Errorf("defaults set = %q, want %q", set, tt.wantSet)
			}
			got, _ := json.Marshal(u.Object["spec"])
			if string(got) != tt.wantSpec {
				t.Errorf("spec = %s, want %s", got, tt.wantSpec)
			}
			if u.GetName() != "w" || u.GetKind() != "Widget" {
				t.Errorf("metadata or kind lost: %v", u.Object)
			}
		})
	}
}

func TestSchemaCoerceTopLevelUnknown(t *testing.T) {
	s := mustSchema(t, widgetCRD(t))
	u := widget(t, `{"size":1}`)
	u.Object["color"] = "red" // at the root, where spec.color belongs
	unknown, err := s.Coerce(u.Object, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unknown, []string{"color"}) {
		t.Errorf("unknown = %q, want [color]", unknown)
	}
	if _, ok := u.Object["color"]; ok {
		t.Errorf("root field color was not pruned")
	}
}

func TestNewSchemaUnknownVersion(t *testing.T) {
	_, err := NewSchema(widgetCRD(t), "v9")
	if err == nil || !strings.Contains(err.Error(), `no version "v9"`) {
		t.Errorf("NewSchema(v9) error = %v, want no version", err)
	}
}
