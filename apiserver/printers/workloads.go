package printers

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// deploymentColumns are the columns of `kubectl get deployments`; the
// priority-1 ones appear with -o wide.
var deploymentColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
	{Name: "Up-to-date", Type: "string", Description: appsv1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]},
	{Name: "Available", Type: "string", Description: appsv1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]},
}

// deployment prints NAME READY (ready/desired) UP-TO-DATE AVAILABLE AGE,
// then CONTAINERS IMAGES SELECTOR.
func (p printer) deployment(d *appsv1.Deployment) metav1.TableRow {
	var desired int32
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	selector := "<invalid>"
	if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
		selector = s.String()
	}
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	return metav1.TableRow{
		Cells: []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, desired), int64(d.Status.UpdatedReplicas),
			int64(d.Status.AvailableReplicas), p.since(d.CreationTimestamp.Time), names, images, selector},
		Object: runtime.RawExtension{Object: d},
	}
}

// replicaSetColumns are the columns of `kubectl get replicasets`.
var replicaSetColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Desired", Type: "integer", Description: appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]},
	{Name: "Current", Type: "integer", Description: appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]},
	{Name: "Ready", Type: "integer", Description: appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"]},
}

// replicaSet prints NAME DESIRED CURRENT READY AGE, then CONTAINERS
// IMAGES SELECTOR (in metav1.FormatLabelSelector's form, as upstream).
func (p printer) replicaSet(rs *appsv1.ReplicaSet) metav1.TableRow {
	var desired int32
	if rs.Spec.Replicas != nil {
		desired = *rs.Spec.Replicas
	}
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	return metav1.TableRow{
		Cells: []any{rs.Name, int64(desired), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
			p.since(rs.CreationTimestamp.Time), names, images, metav1.FormatLabelSelector(rs.Spec.Selector)},
		Object: runtime.RawExtension{Object: rs},
	}
}

// containerCells joins the names and the images of cs with commas.
func containerCells(cs []corev1.Container) (names, images string) {
	n, i := make([]string, len(cs)), make([]string, len(cs))
	for k, c := range cs {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// endpointSliceColumns are the columns of `kubectl get endpointslices`.
var endpointSliceColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "AddressType", Type: "string", Description: discoveryv1.EndpointSlice{}.SwaggerDoc()["addressType"]},
	{Name: "Ports", Type: "string", Description: discoveryv1.EndpointSlice{}.SwaggerDoc()["ports"]},
	{Name: "Endpoints", Type: "string", Description: discoveryv1.EndpointSlice{}.SwaggerDoc()["endpoints"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// endpointSlice prints NAME ADDRESSTYPE PORTS ENDPOINTS AGE; lists show
// three items then "+ N more...", an empty one "<unset>".
func (p printer) endpointSlice(s *discoveryv1.EndpointSlice) metav1.TableRow {
	var ports, addrs []string
	for _, port := range s.Ports {
		switch {
		case port.Port != nil:
			ports = append(ports, strconv.Itoa(int(*port.Port)))
		case port.Name != nil:
			ports = append(ports, *port.Name)
		default:
			ports = append(ports, "*")
		}
	}
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	return metav1.TableRow{
		Cells:  []any{s.Name, string(s.AddressType), listWithMore(ports), listWithMore(addrs), p.since(s.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: s},
	}
}

func listWithMore(list []string) string {
	const most = 3
	switch {
	case len(list) == 0:
		return "<unset>"
	case len(list) > most:
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:most], ","), len(list)-most)
	}
	return strings.Join(list, ",")
}

// Deployments prints deployments.
var Deployments = tableHandler(deploymentColumns, printer.deployment)

// ReplicaSets prints replica sets.
var ReplicaSets = tableHandler(replicaSetColumns, printer.replicaSet)

// EndpointSlices prints endpoint slices.
var EndpointSlices = tableHandler(endpointSliceColumns, printer.endpointSlice)
