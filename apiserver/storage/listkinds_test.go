package storage

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestDropItemKinds: a typed list's items lose their apiVersion and kind
// (kube-apiserver's lists carry them on the list alone), without touching
// the objects they were copied from; a custom resource list's items keep
// theirs, as upstream's do.
func TestDropItemKinds(t *testing.T) {
	cm := &corev1.ConfigMap{}
	cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	list := &corev1.ConfigMapList{}
	list.Items = []corev1.ConfigMap{*cm}
	dropItemKinds(list)
	if k := list.Items[0].TypeMeta; k.Kind != "" || k.APIVersion != "" {
		t.Errorf("typed list item kept %+v", k)
	}
	if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" {
		t.Errorf("the object the item was copied from changed: %+v", cm.TypeMeta)
	}
	u := &unstructured.UnstructuredList{}
	item := unstructured.Unstructured{}
	item.SetAPIVersion("example.com/v1")
	item.SetKind("Widget")
	u.Items = []unstructured.Unstructured{item}
	dropItemKinds(runtime.Object(u))
	if got := u.Items[0].GetKind(); got != "Widget" {
		t.Errorf("custom resource list item's kind = %q, want Widget", got)
	}
}

// TestListObjectContinue: a list that is not paged gets an empty continue,
// which a custom resource list (unstructured) shows as "continue": "",
// as kube-apiserver's does.
func TestListObjectContinue(t *testing.T) {
	s := &Store{newList: func() runtime.Object { return &unstructured.UnstructuredList{} }}
	list, err := s.listObject(&listRead{rev: 7}, Predicate{}, &listItems{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := list.(*unstructured.UnstructuredList).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"continue":""`) || !strings.Contains(string(b), `"resourceVersion":"7"`) {
		t.Errorf("list = %s, want continue \"\" and resourceVersion 7", b)
	}
}
