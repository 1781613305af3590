package controllers

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func gcPod(name string, phase corev1.PodPhase, reason string, created time.Time) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
		Status: corev1.PodStatus{Phase: phase, Reason: reason}}
}

// TestTerminatedOverThreshold: only finished pods count; over the
// threshold the evicted ones go first, then the oldest, then by name.
func TestTerminatedOverThreshold(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pods := []*corev1.Pod{
		gcPod("running", corev1.PodRunning, "", t0),
		gcPod("new-done", corev1.PodSucceeded, "", t0.Add(3*time.Hour)),
		gcPod("old-failed", corev1.PodFailed, "", t0.Add(time.Hour)),
		gcPod("evicted", corev1.PodFailed, evictedReason, t0.Add(4*time.Hour)),
		gcPod("b-same-time", corev1.PodSucceeded, "", t0.Add(2*time.Hour)),
		gcPod("a-same-time", corev1.PodSucceeded, "", t0.Add(2*time.Hour)),
	}
	for _, tc := range []struct {
		threshold int
		want      []string
	}{
		{5, nil},
		{4, []string{"evicted"}},
		{2, []string{"evicted", "old-failed", "a-same-time"}},
		{0, []string{"evicted", "old-failed", "a-same-time", "b-same-time", "new-done"}},
	} {
		var got []string
		for _, p := range terminatedOverThreshold(slices.Clone(pods), tc.threshold) {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("threshold %d: deleted %v, want %v", tc.threshold, got, tc.want)
		}
	}
}
