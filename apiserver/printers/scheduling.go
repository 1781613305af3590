package printers

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// priorityClassColumns are the columns of `kubectl get priorityclasses`
// (upstream's priorityClassColumnDefinitions). PreemptionPolicy is not a
// wide column: kube-apiserver prints tables as wide, so it is always
// filled.
var priorityClassColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Value", Type: "integer", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["value"]},
	{Name: "Global-Default", Type: "boolean", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["globalDefault"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "PreemptionPolicy", Type: "string", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["preemptionPolicy"]},
}

// priorityClass prints NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY, as
// upstream's printPriorityClass (the policy empty when unset).
func (p printer) priorityClass(c *schedulingv1.PriorityClass) metav1.TableRow {
	var policy string
	if c.PreemptionPolicy != nil {
		policy = string(*c.PreemptionPolicy)
	}
	return metav1.TableRow{
		Cells:  []any{c.Name, int64(c.Value), c.GlobalDefault, p.since(c.CreationTimestamp.Time), policy},
		Object: runtime.RawExtension{Object: c},
	}
}

// PriorityClasses prints priority classes.
var PriorityClasses = tableHandler(priorityClassColumns, printer.priorityClass)
