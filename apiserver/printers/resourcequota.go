package printers

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// resourceQuotaColumns are the columns of `kubectl get quota`
// (upstream's resourceQuotaColumnDefinitions).
var resourceQuotaColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
	{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// resourceQuota prints NAME REQUEST LIMIT AGE, as upstream's
// printResourceQuota: each resource of status.hard, sorted by name, as
// "<name>: <used>/<hard>", in LIMIT when its name's first dotted part is
// "limits", else in REQUEST. A quota whose status the controller has
// not filled yet has empty cells.
func (p printer) resourceQuota(q *corev1.ResourceQuota) metav1.TableRow {
	names := make([]string, 0, len(q.Status.Hard))
	for name := range q.Status.Hard {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var requests, limits []string
	for _, name := range names {
		used, hard := q.Status.Used[corev1.ResourceName(name)], q.Status.Hard[corev1.ResourceName(name)]
		cell := name + ": " + used.String() + "/" + hard.String()
		if pieces := strings.Split(name, "."); len(pieces) > 1 && pieces[0] == "limits" {
			limits = append(limits, cell)
		} else {
			requests = append(requests, cell)
		}
	}
	return metav1.TableRow{
		Cells:  []any{q.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), p.since(q.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: q},
	}
}

// ResourceQuotas prints resource quotas. LimitRanges have no printer
// upstream: their table is Default's (NAME CREATED AT).
var ResourceQuotas = tableHandler(resourceQuotaColumns, printer.resourceQuota)
