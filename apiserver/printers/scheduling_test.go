package printers_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPriorityClassRows: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY,
// the policy filled without -o wide, as kube-apiserver prints it.
func TestPriorityClassRows(t *testing.T) {
	never := corev1.PreemptNever
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "batch", CreationTimestamp: ago(time.Hour)},
		Value: 100, GlobalDefault: true, PreemptionPolicy: &never}
	if got, want := fmt.Sprint(MustRow(t, pc)), fmt.Sprint([]any{"batch", int64(100), true, "60m", "Never"}); got != want {
		t.Errorf("priority class row = %s, want %s", got, want)
	}
}
