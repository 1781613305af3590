package printers_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

var statefulSetColumns = []string{"Name", "Ready", "Age", "Containers*", "Images*"}

// TestStatefulSetCells: READY is ready/desired (desired 0 when unset),
// then the age and the containers' names and images.
func TestStatefulSetCells(t *testing.T) {
	containers := []corev1.Container{{Name: "mysql", Image: "mysql:8"}, {Name: "exporter", Image: "exp:1"}}
	runKindCases(t, []kindCase{
		{name: "ready of desired", handler: printers.StatefulSets,
			obj: &appsv1.StatefulSet{ObjectMeta: created("db"),
				Spec:   appsv1.StatefulSetSpec{Replicas: ptr[int32](3), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: containers}}},
				Status: appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 2}},
			columns: statefulSetColumns, cells: []string{"db", "2/3", "3d1h", "mysql,exporter", "mysql:8,exp:1"}},
		{name: "no replicas set", handler: printers.StatefulSets,
			obj:     &appsv1.StatefulSetList{Items: []appsv1.StatefulSet{{ObjectMeta: created("empty")}}},
			columns: statefulSetColumns, cells: []string{"empty", "0/0", "3d1h", "", ""}},
	})
}
