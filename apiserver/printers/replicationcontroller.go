package printers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// replicationControllerColumns are the columns of `kubectl get
// replicationcontrollers` (upstream's
// replicationControllerColumnDefinitions).
var replicationControllerColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Desired", Type: "integer", Description: corev1.ReplicationControllerSpec{}.SwaggerDoc()["replicas"]},
	{Name: "Current", Type: "integer", Description: corev1.ReplicationControllerStatus{}.SwaggerDoc()["replicas"]},
	{Name: "Ready", Type: "integer", Description: corev1.ReplicationControllerStatus{}.SwaggerDoc()["readyReplicas"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	{Name: "Selector", Type: "string", Priority: 1, Description: corev1.ReplicationControllerSpec{}.SwaggerDoc()["selector"]},
}

// replicationController prints NAME DESIRED CURRENT READY AGE, then
// CONTAINERS IMAGES SELECTOR (the selector map in labels.FormatLabels'
// form), as upstream's printReplicationController.
func (p printer) replicationController(rc *corev1.ReplicationController) metav1.TableRow {
	var desired int32
	if rc.Spec.Replicas != nil {
		desired = *rc.Spec.Replicas
	}
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := containerCells(containers)
	return metav1.TableRow{
		Cells: []any{rc.Name, int64(desired), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
			p.since(rc.CreationTimestamp.Time), names, images, labels.FormatLabels(rc.Spec.Selector)},
		Object: runtime.RawExtension{Object: rc},
	}
}

// ReplicationControllers prints replication controllers.
var ReplicationControllers = tableHandler(replicationControllerColumns, printer.replicationController)
