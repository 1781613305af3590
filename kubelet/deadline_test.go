package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// TestActiveDeadline: a pod fails with DeadlineExceeded once its
// activeDeadlineSeconds have passed since it started, its containers
// stopped; a deadline set while it runs counts from its start too.
func TestActiveDeadline(t *testing.T) {
	tests := []struct {
		name     string
		speed    float64
		deadline int64         // activeDeadlineSeconds at creation (0: none)
		setAt    time.Duration // when a deadline of 5s is set (0: never)
		failAt   time.Duration
	}{
		{name: "from the start", speed: 1, deadline: 20, failAt: 20 * time.Second},
		{name: "set while running", speed: 1, setAt: 30 * time.Second, failAt: 30 * time.Second},
		// The deadline is the pod's own, in seconds of wall time, at
		// any speed: at speed 0 the pod runs until it passes.
		{name: "not scaled at speed 0", speed: 0, deadline: 20, failAt: 20 * time.Second},
		{name: "not scaled at speed 10", speed: 10, deadline: 20, failAt: 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPod("web")
			if tt.deadline > 0 {
				p.Spec.ActiveDeadlineSeconds = ptr.To(tt.deadline)
			}
			h := newHarness(t, nil, p, tt.speed, time.Time{})
			if tt.setAt > 0 {
				h.run(tt.setAt)
				if h.last().Phase != corev1.PodRunning {
					t.Fatalf("phase before the deadline is set: %s", h.last().Phase)
				}
				q := h.m.pod.DeepCopy()
				q.Spec.ActiveDeadlineSeconds = ptr.To[int64](5)
				h.setPod(q)
			}
			h.run(time.Hour)
			if got := h.eventTimes(ReasonDeadlineExceeded, msgDeadlineExceeded); len(got) != 1 || got[0] != tt.failAt {
				t.Errorf("DeadlineExceeded events at %v, want one at %v (events %v)", got, tt.failAt, h.events())
			}
			s := h.last()
			if s.Phase != corev1.PodFailed || s.Reason != ReasonDeadlineExceeded || s.Message != msgDeadlineExceeded {
				t.Errorf("status %s %q %q, want Failed with DeadlineExceeded", s.Phase, s.Reason, s.Message)
			}
			if cs := s.ContainerStatuses[0]; cs.State.Terminated == nil {
				t.Errorf("container state %s, want terminated", state(cs.State))
			}
			if !h.m.terminated {
				t.Error("machine not terminated")
			}
		})
	}
}
