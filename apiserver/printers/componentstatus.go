package printers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// componentStatusColumns are the columns of `kubectl get cs` (upstream's
// componentStatusColumnDefinitions).
var componentStatusColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Status", Type: "string", Description: "Status of the component conditions"},
	{Name: "Message", Type: "string", Description: "Message of the component conditions"},
	{Name: "Error", Type: "string", Description: "Error of the component conditions"},
}

// componentStatus prints NAME STATUS MESSAGE ERROR from the Healthy
// condition: Healthy when it is True, Unhealthy otherwise, Unknown
// without one (upstream's printComponentStatus).
func (p printer) componentStatus(cs *corev1.ComponentStatus) metav1.TableRow {
	status, message, errText := "Unknown", "", ""
	for _, c := range cs.Conditions {
		if c.Type != corev1.ComponentHealthy {
			continue
		}
		status = "Unhealthy"
		if c.Status == corev1.ConditionTrue {
			status = "Healthy"
		}
		message, errText = c.Message, c.Error
		break
	}
	return metav1.TableRow{Cells: []any{cs.Name, status, message, errText}, Object: runtime.RawExtension{Object: cs}}
}

// ComponentStatuses prints component statuses.
var ComponentStatuses = tableHandler(componentStatusColumns, printer.componentStatus)
