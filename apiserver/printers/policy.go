package printers

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// podDisruptionBudgetColumns are the columns of `kubectl get pdb`
// (upstream's podDisruptionBudgetColumnDefinitions).
var podDisruptionBudgetColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
	{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
	{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// podDisruptionBudget prints NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED
// DISRUPTIONS AGE, "N/A" for the bound not set, as upstream's
// printPodDisruptionBudget.
func (p printer) podDisruptionBudget(b *policyv1.PodDisruptionBudget) metav1.TableRow {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if b.Spec.MinAvailable != nil {
		minAvailable = b.Spec.MinAvailable.String()
	}
	if b.Spec.MaxUnavailable != nil {
		maxUnavailable = b.Spec.MaxUnavailable.String()
	}
	return metav1.TableRow{
		Cells:  []any{b.Name, minAvailable, maxUnavailable, int64(b.Status.DisruptionsAllowed), p.since(b.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: b},
	}
}

// PodDisruptionBudgets prints pod disruption budgets.
var PodDisruptionBudgets = tableHandler(podDisruptionBudgetColumns, printer.podDisruptionBudget)
