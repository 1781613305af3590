package printers_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

var replicationControllerColumns = []string{"Name", "Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"}

// TestReplicationControllerCells: desired 0 when unset, no containers
// without a template, the selector map as labels (<none> when empty).
func TestReplicationControllerCells(t *testing.T) {
	rc := &corev1.ReplicationController{ObjectMeta: created("web"),
		Spec: corev1.ReplicationControllerSpec{Replicas: ptr[int32](4), Selector: map[string]string{"tier": "fe", "app": "web"},
			Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}},
		Status: corev1.ReplicationControllerStatus{Replicas: 3, ReadyReplicas: 2}}
	runKindCases(t, []kindCase{
		{name: "full", handler: printers.ReplicationControllers, obj: rc, columns: replicationControllerColumns,
			cells: []string{"web", "4", "3", "2", "3d1h", "web", "nginx", "app=web,tier=fe"}},
		{name: "bare", handler: printers.ReplicationControllers, obj: &corev1.ReplicationController{ObjectMeta: created("bare")},
			columns: replicationControllerColumns, cells: []string{"bare", "0", "0", "0", "3d1h", "", "", "<none>"}},
	})
}
