package printers

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// statefulSetColumns are the columns of `kubectl get statefulsets`
// (upstream's statefulSetColumnDefinitions); the priority-1 ones appear
// with -o wide.
var statefulSetColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
}

// statefulSet prints NAME READY (ready/desired) AGE, then CONTAINERS
// IMAGES, as upstream's printStatefulSet.
func (p printer) statefulSet(s *appsv1.StatefulSet) metav1.TableRow {
	var desired int32
	if s.Spec.Replicas != nil {
		desired = *s.Spec.Replicas
	}
	names, images := containerCells(s.Spec.Template.Spec.Containers)
	return metav1.TableRow{
		Cells:  []any{s.Name, fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, desired), p.since(s.CreationTimestamp.Time), names, images},
		Object: runtime.RawExtension{Object: s},
	}
}

// StatefulSets prints stateful sets.
var StatefulSets = tableHandler(statefulSetColumns, printer.statefulSet)
