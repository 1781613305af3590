package scenarios

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Kinds defined by the scenario itself: a CustomResourceDefinition
// applied in a step makes its kind known to the steps after it, as a
// kubectl that has refreshed its discovery knows it. Their objects are
// not decoded strictly when the file is loaded (kubesim has no Go type
// for them): the API server's structural schema checks them.

// kindOf returns what the loader knows of kind: a built-in kind, or one
// a CustomResourceDefinition earlier in the file defines.
func (l *loader) kindOf(kind string) (kindInfo, bool) {
	if info, ok := kinds[kind]; ok {
		return info, true
	}
	info, ok := l.customKinds[kind]
	return info, ok
}

// learnKind records the kind a CustomResourceDefinition object defines,
// at its storage version (or its first served one).
func (l *loader) learnKind(crd *unstructured.Unstructured) {
	if crd.GetKind() != "CustomResourceDefinition" {
		return
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	version := ""
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if storage, _ := m["storage"].(bool); storage {
			version = name
			break
		}
		if served, _ := m["served"].(bool); served && version == "" {
			version = name
		}
	}
	if kind == "" || plural == "" || version == "" {
		return
	}
	if l.customKinds == nil {
		l.customKinds = map[string]kindInfo{}
	}
	l.customKinds[kind] = kindInfo{
		gvr:        schema.GroupVersionResource{Group: group, Version: version, Resource: plural},
		namespaced: scope == "Namespaced",
	}
}

// customKind returns a kind the scenario's CustomResourceDefinitions
// define.
func (p *player) customKind(kind string) (kindInfo, bool) {
	if p.scenario == nil {
		return kindInfo{}, false
	}
	info, ok := p.scenario.customKinds[kind]
	return info, ok
}

// manifestScheme knows the Go types manifests are strictly decoded into:
// client-go's, and those of CustomResourceDefinition and APIService.
var manifestScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(scheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(apiregistrationv1.AddToScheme(s))
	return s
}()
