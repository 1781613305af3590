package printers_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/apiserver/printers"
)

var resourceQuotaColumns = []string{"Name", "Request", "Limit", "Age"}

// TestResourceQuotaCells: each resource of status.hard, sorted, as
// used/hard, the limits.* ones under LIMIT (what the real kube-apiserver
// prints for kubectl create quota cq --hard=requests.cpu=1,limits.memory=1Gi,pods=5
// and a pod of 200m and 100Mi); a quota the controller has not counted
// yet has empty cells.
func TestResourceQuotaCells(t *testing.T) {
	q := resource.MustParse
	hard := corev1.ResourceList{corev1.ResourceRequestsCPU: q("1"), corev1.ResourceLimitsMemory: q("1Gi"), corev1.ResourcePods: q("5")}
	counted := &corev1.ResourceQuota{ObjectMeta: created("cq"), Spec: corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{Hard: hard, Used: corev1.ResourceList{corev1.ResourceRequestsCPU: q("200m"), corev1.ResourceLimitsMemory: q("100Mi"), corev1.ResourcePods: q("1")}}}
	fresh := &corev1.ResourceQuota{ObjectMeta: created("q"), Spec: corev1.ResourceQuotaSpec{Hard: hard}}
	runKindCases(t, []kindCase{
		{name: "counted", handler: printers.ResourceQuotas, obj: counted, columns: resourceQuotaColumns,
			cells: []string{"cq", "pods: 1/5, requests.cpu: 200m/1", "limits.memory: 100Mi/1Gi", "3d1h"}},
		{name: "fresh", handler: printers.ResourceQuotas, obj: fresh, columns: resourceQuotaColumns,
			cells: []string{"q", "", "", "3d1h"}},
	})
}
