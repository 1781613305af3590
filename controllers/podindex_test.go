package controllers

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// TestPodsOfControllers: the index hands a controller its own pods and
// the orphans of its namespace, none of another controller's or of
// another namespace, and follows a pod adopted or released.
func TestPodsOfControllers(t *testing.T) {
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Pod{}, 0, cache.Indexers{})
	if err := addPodControllerUIDIndex(inf); err != nil {
		t.Fatal(err)
	}
	if err := addPodControllerUIDIndex(inf); err != nil {
		t.Fatalf("a second add: %v", err)
	}
	yes := true
	pod := func(ns, name string, owner types.UID) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: string(owner), UID: owner, Controller: &yes}}
		}
		return p
	}
	idx := inf.GetIndexer()
	for _, p := range []*corev1.Pod{pod("a", "mine", "rs1"), pod("a", "other", "rs2"), pod("a", "orphan", ""), pod("b", "far-orphan", "")} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	names := func(pods []*corev1.Pod) []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}
	if got := names(podsOfControllers(idx, "a", "rs1")); !slices.Equal(got, []string{"mine", "orphan"}) {
		t.Errorf("rs1 with orphans: %v", got)
	}
	if got := names(podsOfControllers(idx, "", "rs1", "rs2")); !slices.Equal(got, []string{"mine", "other"}) {
		t.Errorf("rs1 and rs2: %v", got)
	}
	if err := idx.Update(pod("a", "orphan", "rs1")); err != nil {
		t.Fatal(err)
	}
	if err := idx.Update(pod("a", "mine", "")); err != nil {
		t.Fatal(err)
	}
	if got := names(podsOfControllers(idx, "", "rs1")); !slices.Equal(got, []string{"orphan"}) {
		t.Errorf("rs1 after an adoption and a release: %v", got)
	}
}
