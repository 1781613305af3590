package printers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// daemonSetColumns are the columns of `kubectl get daemonsets`
// (upstream's daemonSetColumnDefinitions).
var daemonSetColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Desired", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["desiredNumberScheduled"]},
	{Name: "Current", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["currentNumberScheduled"]},
	{Name: "Ready", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["numberReady"]},
	{Name: "Up-to-date", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["updatedNumberScheduled"]},
	{Name: "Available", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["numberAvailable"]},
	{Name: "Node Selector", Type: "string", Description: corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]},
}

// daemonSet prints NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE
// NODE SELECTOR AGE, then CONTAINERS IMAGES SELECTOR, as upstream's
// printDaemonSet (the node selector in labels.FormatLabels' form,
// <none> when empty).
func (p printer) daemonSet(ds *appsv1.DaemonSet) metav1.TableRow {
	s := ds.Status
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	return metav1.TableRow{
		Cells: []any{ds.Name, int64(s.DesiredNumberScheduled), int64(s.CurrentNumberScheduled), int64(s.NumberReady),
			int64(s.UpdatedNumberScheduled), int64(s.NumberAvailable), labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
			p.since(ds.CreationTimestamp.Time), names, images, metav1.FormatLabelSelector(ds.Spec.Selector)},
		Object: runtime.RawExtension{Object: ds},
	}
}

// DaemonSets prints daemon sets.
var DaemonSets = tableHandler(daemonSetColumns, printer.daemonSet)
