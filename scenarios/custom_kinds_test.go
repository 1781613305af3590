package scenarios_test

import (
	"strings"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// crdStep applies a CustomResourceDefinition of kind Widget.
const crdStep = `  - narration: {en: N, zh: 旁白}
    apply: |
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata: {name: widgets.example.com}
      spec:
        group: example.com
        scope: Namespaced
        names: {plural: widgets, singular: widget, kind: Widget}
        versions:
          - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`

// widgetStep applies a Widget.
const widgetStep = `  - narration: {en: N, zh: 旁白}
    apply: |
      apiVersion: example.com/v1
      kind: Widget
      metadata: {name: w1}
      spec: {size: 3}
`

// TestCustomKinds: a kind a CustomResourceDefinition of the file defines
// is known to the steps after the one that applies it, namespaced as its
// scope says, and unknown before it.
func TestCustomKinds(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(header+"steps:\n"+crdStep+widgetStep+
		"  - narration: {en: N, zh: 旁白}\n    delete: {kind: Widget, name: w1}\n"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	w := s.Steps[1].Action.(*scenarios.ApplyAction).Objects[0]
	if w.GetNamespace() != "default" {
		t.Errorf("Widget's namespace = %q, want default (the CRD is Namespaced)", w.GetNamespace())
	}
	if d := s.Steps[2].Action.(*scenarios.DeleteAction); d.Object.Namespace != "default" {
		t.Errorf("delete's object = %+v, want it in default", d.Object)
	}
	_, err = scenarios.Parse("t.yaml", []byte(header+"steps:\n"+widgetStep+crdStep))
	if err == nil || !strings.Contains(err.Error(), `unsupported kind "Widget"`) {
		t.Errorf("Widget before its CRD: err = %v, want unsupported kind", err)
	}
}
