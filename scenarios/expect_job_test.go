package scenarios

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

func TestParseWorkloadExpectations(t *testing.T) {
	checkParse(t, parseJobExpectation, []parseCase[Expectation]{
		{name: "figures", key: "job", src: `{name: pi, status: Complete, completions: 1/1, activeAtMost: 2}`,
			want: &JobExpectation{Job: ObjectSpec{Kind: "Job", Name: "pi", Namespace: DefaultNamespace}, Status: "Complete", Completions: "1/1", ActiveAtMost: ptr.To[int64](2)}},
		{name: "no figure", key: "job", src: `{name: pi}`, wantErr: `1:1: job: give at least one of status, completions, completedIndexes, succeeded, failed, active, ready, activeAtMost`},
		{name: "bad status", key: "job", src: `{name: pi, status: Done}`, wantErr: `1:20: job.status: "Done" is not one of Complete, Failed, Terminating, Suspended, FailureTarget, SuccessCriteriaMet, Running`},
	})
	checkParse(t, parseDisruptionBudget, []parseCase[Expectation]{
		{name: "figures", key: "disruptionBudget", src: `{name: web, allowed: 0}`,
			want: &DisruptionBudgetExpectation{Budget: ObjectSpec{Kind: "PodDisruptionBudget", Name: "web", Namespace: DefaultNamespace}, Allowed: ptr.To[int64](0)}},
		{name: "no figure", key: "disruptionBudget", src: `{name: web}`, wantErr: `1:1: disruptionBudget: give at least one of allowed, currentHealthy, desiredHealthy, expectedPods`},
	})
}

func TestJobColumns(t *testing.T) {
	cond := func(t batchv1.JobConditionType) batchv1.JobCondition {
		return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue}
	}
	for _, tc := range []struct {
		name                    string
		spec                    batchv1.JobSpec
		status                  batchv1.JobStatus
		wantStatus, wantColumns string
	}{
		{"complete", batchv1.JobSpec{Completions: ptr.To[int32](1)},
			batchv1.JobStatus{Succeeded: 1, Conditions: []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet), cond(batchv1.JobComplete)}}, "Complete", "1/1"},
		{"failure target", batchv1.JobSpec{Completions: ptr.To[int32](5)},
			batchv1.JobStatus{Succeeded: 3, Conditions: []batchv1.JobCondition{cond(batchv1.JobFailureTarget)}}, "FailureTarget", "3/5"},
		{"work queue", batchv1.JobSpec{Parallelism: ptr.To[int32](3)}, batchv1.JobStatus{}, "Running", "0/1 of 3"},
	} {
		job := &batchv1.Job{Spec: tc.spec, Status: tc.status}
		if got := jobStatusColumn(job); got != tc.wantStatus {
			t.Errorf("%s: STATUS %q, want %q", tc.name, got, tc.wantStatus)
		}
		if got := jobCompletionsColumn(job); got != tc.wantColumns {
			t.Errorf("%s: COMPLETIONS %q, want %q", tc.name, got, tc.wantColumns)
		}
	}
}

// podEvent is a watch event of pod uid at resourceVersion rv in phase.
func podEvent(typ watch.EventType, uid string, rv int, phase corev1.PodPhase) watch.Event {
	return watch.Event{Type: typ, Object: &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), ResourceVersion: strconv.Itoa(rv)},
		Status:     corev1.PodStatus{Phase: phase}}}
}

func TestReplayActive(t *testing.T) {
	w := watch.NewFakeWithChanSize(10, false)
	for _, ev := range []watch.Event{
		podEvent(watch.Added, "a", 10, corev1.PodPending),
		podEvent(watch.Added, "b", 11, corev1.PodPending),
		podEvent(watch.Modified, "a", 12, corev1.PodSucceeded),
		podEvent(watch.Added, "c", 13, corev1.PodPending),
		podEvent(watch.Modified, "b", 14, corev1.PodSucceeded),
		podEvent(watch.Modified, "c", 15, corev1.PodSucceeded),
		podEvent(watch.Added, "late", 16, corev1.PodPending), // after until: not read
	} {
		w.Action(ev.Type, ev.Object)
	}
	most, err := replayActive(context.Background(), w, 15)
	if err != nil || most != 2 {
		t.Errorf("replayActive = %d, %v; want 2", most, err)
	}
}

func TestByLogging(t *testing.T) {
	old := metav1.NewTime(time.Unix(100, 0))
	young := metav1.NewTime(time.Unix(200, 0))
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "unbound", CreationTimestamp: old}, Status: corev1.PodStatus{Phase: corev1.PodPending}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pending", CreationTimestamp: old}, Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodPending}},
		{ObjectMeta: metav1.ObjectMeta{Name: "young", CreationTimestamp: young}, Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}},
		{ObjectMeta: metav1.ObjectMeta{Name: "old", CreationTimestamp: old}, Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}},
	}
	sort.Sort(byLogging(pods))
	var got []string
	for _, p := range pods {
		got = append(got, p.Name)
	}
	if want := []string{"old", "young", "pending", "unbound"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
