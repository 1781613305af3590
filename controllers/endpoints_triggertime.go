package controllers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The endpoints.kubernetes.io/last-change-trigger-time annotation of the
// Endpoints and EndpointSlices is computed by k8s.io/endpointslice/util's
// TriggerTimeTracker, as in kube-controller-manager: the earliest of the
// changes seen since the last sync of the Service, where a pod's change
// is its Ready condition's lastTransitionTime and the Service's its
// creation (the Service's creation itself on its first sync; none, and
// the annotation removed, when nothing moved).

// setTriggerTime sets the annotation to at (RFC 3339 with nanoseconds,
// UTC), or removes it when at is zero.
func setTriggerTime(annotations map[string]string, at time.Time) {
	if at.IsZero() {
		delete(annotations, corev1.EndpointsLastChangeTriggerTime)
		return
	}
	annotations[corev1.EndpointsLastChangeTriggerTime] = at.UTC().Format(time.RFC3339Nano)
}
