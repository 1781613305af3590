package printers

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// leaseColumns are the columns of `kubectl get leases`.
var leaseColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Holder", Type: "string", Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// lease prints one lease: NAME HOLDER AGE; HOLDER is empty for a lease
// nobody holds.
func (p printer) lease(l *coordinationv1.Lease) metav1.TableRow {
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	return metav1.TableRow{
		Cells:  []any{l.Name, holder, p.since(l.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: l},
	}
}

// Leases prints leases.
var Leases = tableHandler(leaseColumns, printer.lease)
