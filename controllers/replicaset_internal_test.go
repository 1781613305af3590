package controllers

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestSlowStartBatch: calls go in batches of 1, 2, 4, ...; the first
// batch with a failure is the last.
func TestSlowStartBatch(t *testing.T) {
	var calls atomic.Int32
	ok := func() error { calls.Add(1); return nil }
	if n, err := slowStartBatch(10, 1, ok); n != 10 || err != nil || calls.Load() != 10 {
		t.Errorf("10 calls that succeed: %d succeeded, %d made, err %v", n, calls.Load(), err)
	}
	calls.Store(0)
	failFrom := func() error {
		if calls.Add(1) > 3 { // the batch of 4 (calls 4-7) fails
			return errors.New("quota")
		}
		return nil
	}
	n, err := slowStartBatch(20, 1, failFrom)
	if err == nil || n != 3 || calls.Load() != 7 {
		t.Errorf("failing from the 4th call: %d succeeded, %d made, err %v; want 3 of 7 and an error", n, calls.Load(), err)
	}
}

// TestExpectations: a controller waits for every creation and every
// deletion it asked for, or for the timeout.
func TestExpectations(t *testing.T) {
	now := time.Unix(1e9, 0)
	e := newExpectations(time.Minute)
	e.now = func() time.Time { return now }
	if !e.satisfied("rs") {
		t.Fatal("no record: want satisfied")
	}
	e.expectCreations("rs", 2)
	e.creationObserved("rs")
	if e.satisfied("rs") {
		t.Error("one of two creations seen: want not satisfied")
	}
	e.creationObserved("rs")
	if !e.satisfied("rs") {
		t.Error("both creations seen: want satisfied")
	}
	e.expectDeletions("rs", []string{"ns/a", "ns/b"})
	e.deletionObserved("rs", "ns/c")
	e.deletionObserved("rs", "ns/a")
	if e.satisfied("rs") {
		t.Error("ns/b not seen gone: want not satisfied")
	}
	now = now.Add(2 * time.Minute)
	if !e.satisfied("rs") {
		t.Error("after the timeout: want satisfied")
	}
}

// TestPodsToDelete: a scale-down takes the pods upstream takes first:
// unassigned, then pending, then not ready, then the ones sharing a
// node, then the most recently ready.
func TestPodsToDelete(t *testing.T) {
	now := time.Unix(1e9, 0)
	pod := func(name, node string, phase corev1.PodPhase, readySince time.Duration) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase}}
		if readySince > 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-readySince))}}
		}
		return p
	}
	pods := []*corev1.Pod{
		pod("old-ready", "node-1", corev1.PodRunning, 10*time.Hour),
		pod("new-ready", "node-2", corev1.PodRunning, time.Second),
		pod("doubled", "node-3", corev1.PodRunning, 10*time.Hour),
		pod("doubled-too", "node-3", corev1.PodRunning, 10*time.Hour),
		pod("not-ready", "node-4", corev1.PodRunning, 0),
		pod("pending", "node-5", corev1.PodPending, 0),
		pod("unassigned", "", corev1.PodPending, 0),
	}
	got := podsToDelete(append([]*corev1.Pod(nil), pods...), pods, 6, now)
	want := []string{"unassigned", "pending", "not-ready", "doubled*", "doubled*", "new-ready"}
	for i, p := range got {
		if w := want[i]; p.Name != w && (w != "doubled*" || (p.Name != "doubled" && p.Name != "doubled-too")) {
			t.Errorf("victim %d is %s, want %s", i, p.Name, w)
		}
	}
}
