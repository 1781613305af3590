package scenarios

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// byLogging orders pods as k8s.io/kubectl's podutils.ByLogging does, so
// that the first is the pod kubectl logs picks among a controller's:
// bound before unbound; Running before Unknown before Pending (any other
// phase ranks with Running, as kubectl's map gives it 0); ready before
// not ready; of two ready pods, the one ready longer; more container
// restarts before fewer; older before newer.
type byLogging []*corev1.Pod

func (s byLogging) Len() int      { return len(s) }
func (s byLogging) Swap(i, j int) { s[i], s[j] = s[j], s[i] }

func (s byLogging) Less(i, j int) bool {
	a, b := s[i], s[j]
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return a.Spec.NodeName != ""
	}
	rank := map[corev1.PodPhase]int{corev1.PodRunning: 0, corev1.PodUnknown: 1, corev1.PodPending: 2}
	if rank[a.Status.Phase] != rank[b.Status.Phase] {
		return rank[a.Status.Phase] < rank[b.Status.Phase]
	}
	ra, rb := readySince(a), readySince(b)
	if (ra != nil) != (rb != nil) {
		return ra != nil
	}
	if ra != nil && !ra.Equal(*rb) {
		return afterOrZero(*rb, *ra)
	}
	if ma, mb := maxRestarts(a), maxRestarts(b); ma != mb {
		return ma > mb
	}
	ca, cb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ca.Equal(cb) {
		return afterOrZero(cb, ca)
	}
	return false
}

// readySince is the time the pod's Ready condition became True, nil when
// it is not ready.
func readySince(p *corev1.Pod) *time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			t := c.LastTransitionTime.Time
			return &t
		}
	}
	return nil
}

// afterOrZero: t1 is after t2, or t1 is zero and t2 is not (kubectl's).
func afterOrZero(t1, t2 time.Time) bool {
	if t1.IsZero() || t2.IsZero() {
		return t1.IsZero()
	}
	return t1.After(t2)
}

// maxRestarts is the most restarts of any of the pod's containers.
func maxRestarts(p *corev1.Pod) int32 {
	var most int32
	for _, cs := range p.Status.ContainerStatuses {
		most = max(most, cs.RestartCount)
	}
	return most
}
