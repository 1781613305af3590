package controllers

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// triggerTimeTracker computes the endpoints.kubernetes.io/
// last-change-trigger-time annotation as upstream's TriggerTimeTracker:
// the earliest of the changes seen since the last sync of the Service,
// where a pod's change is its Ready condition's lastTransitionTime and
// the Service's its creation. Like upstream's it is an approximation
// when one object changes twice between two syncs.
//
// Safe for concurrent use for different Services; a workqueue never
// hands one key to two workers at once.
type triggerTimeTracker struct {
	mu     sync.Mutex
	states map[string]triggerState // by namespace/name
}

type triggerState struct {
	service time.Time
	pods    map[string]time.Time // by pod name
}

func newTriggerTimeTracker() *triggerTimeTracker {
	return &triggerTimeTracker{states: map[string]triggerState{}}
}

// lastChange records what the sync of svc sees and returns the trigger
// time to write: the Service's creation the first time, else the
// earliest trigger time that moved since the last sync (zero: none, the
// annotation is removed).
func (t *triggerTimeTracker) lastChange(svc *corev1.Service, pods []*corev1.Pod) time.Time {
	key := svc.Namespace + "/" + svc.Name
	t.mu.Lock()
	prev, known := t.states[key]
	t.mu.Unlock()
	var earliest time.Time
	next := triggerState{service: svc.CreationTimestamp.Time, pods: map[string]time.Time{}}
	for _, p := range pods {
		c := podReadyCondition(p)
		if c == nil || c.LastTransitionTime.IsZero() {
			continue
		}
		at := c.LastTransitionTime.Time
		next.pods[p.Name] = at
		if at.After(prev.pods[p.Name]) {
			earliest = earlier(earliest, at)
		}
	}
	if next.service.After(prev.service) {
		earliest = earlier(earliest, next.service)
	}
	t.mu.Lock()
	t.states[key] = next
	t.mu.Unlock()
	if !known {
		return svc.CreationTimestamp.Time
	}
	return earliest
}

// forget drops the Service's state (it was deleted).
func (t *triggerTimeTracker) forget(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.states, namespace+"/"+name)
}

// earlier is the earlier of cur and t, t if cur is zero.
func earlier(cur, t time.Time) time.Time {
	if cur.IsZero() || t.Before(cur) {
		return t
	}
	return cur
}

// setTriggerTime sets the annotation to at (RFC 3339 with nanoseconds,
// UTC), or removes it when at is zero.
func setTriggerTime(annotations map[string]string, at time.Time) {
	if at.IsZero() {
		delete(annotations, corev1.EndpointsLastChangeTriggerTime)
		return
	}
	annotations[corev1.EndpointsLastChangeTriggerTime] = at.UTC().Format(time.RFC3339Nano)
}
