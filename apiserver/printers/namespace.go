package printers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// namespaceColumns are the columns of `kubectl get namespaces`.
var namespaceColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Status", Type: "string", Description: "The status of the namespace"},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// namespace prints one namespace: NAME STATUS AGE, where STATUS is the phase
// (Active or Terminating).
func (p printer) namespace(ns *corev1.Namespace) metav1.TableRow {
	return metav1.TableRow{
		Cells:  []any{ns.Name, string(ns.Status.Phase), p.since(ns.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: ns},
	}
}

// Namespaces prints namespaces.
var Namespaces = tableHandler(namespaceColumns, printer.namespace)
