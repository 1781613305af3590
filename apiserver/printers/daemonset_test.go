package printers_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

var daemonSetColumns = []string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers*", "Images*", "Selector*"}

// TestDaemonSetCells: the status counts in upstream's order, the node
// selector as labels (<none> when empty), the selector as
// metav1.FormatLabelSelector writes it.
func TestDaemonSetCells(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: created("agent"),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: map[string]string{"zone": "x", "disk": "ssd"},
				Containers: []corev1.Container{{Name: "agent", Image: "agent:2"}}}}},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 5, CurrentNumberScheduled: 4, NumberReady: 3, UpdatedNumberScheduled: 2, NumberAvailable: 1}}
	runKindCases(t, []kindCase{
		{name: "counts and selectors", handler: printers.DaemonSets, obj: ds, columns: daemonSetColumns,
			cells: []string{"agent", "5", "4", "3", "2", "1", "disk=ssd,zone=x", "3d1h", "agent", "agent:2", "app=agent,tier in (a,b)"}},
		{name: "empty", handler: printers.DaemonSets, obj: &appsv1.DaemonSet{ObjectMeta: created("bare")}, columns: daemonSetColumns,
			cells: []string{"bare", "0", "0", "0", "0", "0", "<none>", "3d1h", "", "", "<none>"}},
	})
}
