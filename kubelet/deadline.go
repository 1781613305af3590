package kubelet

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The kubelet's active deadline (pkg/kubelet/active_deadline.go): a pod
// whose spec.activeDeadlineSeconds have passed since its status.startTime
// fails at once with reason DeadlineExceeded, and its containers are
// stopped with the pod's grace period. The deadline may be set or
// shortened while the pod runs (the API server lets it be updated).
const (
	ReasonDeadlineExceeded = "DeadlineExceeded"
	msgDeadlineExceeded    = "Pod was active on the node longer than the specified deadline"
)

// activeDeadline is when the pod's active deadline passes, zero if it has
// none or has not started. It is not divided by the speed, unlike the
// kubelet's simulated delays: it is the pod's own limit in seconds, and at
// speed 0 it would otherwise fail every pod that has one at once.
func (m *podMachine) activeDeadline() time.Time {
	secs := m.pod.Spec.ActiveDeadlineSeconds
	start := m.pod.Status.StartTime
	if m.last != nil && m.last.StartTime != nil {
		start = m.last.StartTime
	}
	if secs == nil || start == nil || start.IsZero() {
		return time.Time{}
	}
	return start.Add(time.Duration(*secs) * time.Second)
}

// exceedDeadline begins the end of a pod past its active deadline: the
// kubelet's event, then its containers are stopped as for a deletion
// (terminate), and its status says Failed (status). It reports whether it
// acted.
func (m *podMachine) exceedDeadline(now time.Time) ([]output, bool) {
	if m.deadlineExceeded || m.terminated || m.killing {
		return nil, false
	}
	d := m.activeDeadline()
	if d.IsZero() || now.Before(d) {
		return nil, false
	}
	m.deadlineExceeded = true
	out := []output{{eventType: corev1.EventTypeNormal, reason: ReasonDeadlineExceeded, message: msgDeadlineExceeded}}
	kill, _ := m.terminate(now)
	return append(out, kill...), true
}
