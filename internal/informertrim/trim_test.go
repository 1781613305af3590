package informertrim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// TestManagedFields: the transform drops managedFields and keeps the
// rest; a tombstone (no metadata of its own) passes unchanged.
func TestManagedFields(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}}}}
	got, err := ManagedFields(p)
	if err != nil {
		t.Fatal(err)
	}
	gp := got.(*corev1.Pod)
	if gp.ManagedFields != nil || gp.Name != "a" || gp.Labels["app"] != "x" {
		t.Errorf("got %+v", gp.ObjectMeta)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: "default/a", Obj: p}
	if got, err := ManagedFields(tomb); err != nil || got.(cache.DeletedFinalStateUnknown).Key != "default/a" {
		t.Errorf("tombstone: %v %v", got, err)
	}
}
