package printers_test

import (
	"fmt"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// TestJobRows: STATUS, COMPLETIONS and DURATION as upstream's printJob.
func TestJobRows(t *testing.T) {
	started, finished := ago(10*time.Minute), ago(7*time.Minute)
	cond := func(ty batchv1.JobConditionType) []batchv1.JobCondition {
		return []batchv1.JobCondition{{Type: ty, Status: corev1.ConditionTrue}}
	}
	tests := []struct {
		name string
		job  batchv1.Job
		want []any // STATUS COMPLETIONS DURATION
	}{
		{"running, one completion", batchv1.Job{Spec: batchv1.JobSpec{Completions: ptr[int32](1)}, Status: batchv1.JobStatus{StartTime: &started}},
			[]any{"Running", "0/1", "10m"}},
		{"complete", batchv1.Job{Spec: batchv1.JobSpec{Completions: ptr[int32](3)}, Status: batchv1.JobStatus{Succeeded: 3, StartTime: &started, CompletionTime: &finished, Conditions: cond(batchv1.JobComplete)}},
			[]any{"Complete", "3/3", "3m"}},
		{"work queue", batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr[int32](4)}, Status: batchv1.JobStatus{Conditions: cond(batchv1.JobSuspended)}},
			[]any{"Suspended", "0/1 of 4", ""}},
		{"failed beats terminating", batchv1.Job{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: agoPtr(time.Second)}, Status: batchv1.JobStatus{Conditions: cond(batchv1.JobFailed)}},
			[]any{"Failed", "0/1", ""}},
		{"terminating", batchv1.Job{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: agoPtr(time.Second)}, Status: batchv1.JobStatus{Conditions: cond(batchv1.JobSuspended)}},
			[]any{"Terminating", "0/1", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := tt.job
			j.Name, j.CreationTimestamp = "pi", ago(time.Hour)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"controller-uid": "u"}}
			j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "pi", Image: "perl"}}
			got := MustRow(t, &j)
			want := append(append([]any{"pi"}, tt.want...), "60m", "pi", "perl", "controller-uid=u")
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("row = %v, want %v", got, want)
			}
		})
	}
}

// TestCronJobPDBRows: the cron job and budget rows as upstream prints them.
func TestCronJobPDBRows(t *testing.T) {
	last := ago(2 * time.Minute)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "x", CreationTimestamp: ago(time.Hour)},
		Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", Suspend: ptr(false),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "busybox"}}}}}}},
		Status: batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "x-1"}}, LastScheduleTime: &last}}
	if got, want := fmt.Sprint(MustRow(t, cj)), fmt.Sprint([]any{"x", "*/1 * * * *", "<none>", "False", int64(1), "2m", "60m", "x", "busybox", "<none>"}); got != want {
		t.Errorf("cron job row = %s, want %s", got, want)
	}
	pct := intstr.FromString("20%")
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: ago(time.Hour)},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &pct}, Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 2}}
	if got, want := fmt.Sprint(MustRow(t, pdb)), fmt.Sprint([]any{"p", "N/A", "20%", int64(2), "60m"}); got != want {
		t.Errorf("budget row = %s, want %s", got, want)
	}
}

// TestHorizontalPodAutoscalerRows: TARGETS as upstream's
// formatHPAMetrics; a v1 object prints through its v2 form.
func TestHorizontalPodAutoscalerRows(t *testing.T) {
	q := resource.MustParse
	cpu := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](50)}}}
	mem := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceMemory,
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr(q("100Mi"))}}}
	ext := autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr(q("5"))}}}
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", CreationTimestamp: ago(time.Hour)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web"},
			MaxReplicas: 5, Metrics: []autoscalingv2.MetricSpec{cpu, mem, ext}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr[int32](30)}}}}}}
	want := fmt.Sprint([]any{"web", "Deployment/web", "cpu: 30%/50%, memory: <unknown>/100Mi + 1 more...", "<unset>", int64(5), int64(2), "60m"})
	if got := fmt.Sprint(MustRow(t, h)); got != want {
		t.Errorf("v2 row = %s, want %s", got, want)
	}
	v1 := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	conv := printers.HorizontalPodAutoscalersV1(func(in *autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, error) {
		if in != v1 {
			t.Errorf("converted %p, want the v1 object", in)
		}
		return h, nil
	})
	table, err := conv.ConvertToTable(v1, printers.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(table.Rows[0].Cells); got != want || table.Rows[0].Object.Object != v1 {
		t.Errorf("v1 row = %s (object %T), want %s with the v1 object", got, table.Rows[0].Object.Object, want)
	}
}
