package controllers

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
)

// deletionExpected marks a slice the controller deleted itself.
const deletionExpected = -1

// sliceTracker remembers the generation of every EndpointSlice the
// controller wrote, per Service, as upstream's EndpointSliceTracker: an
// informer event for a generation it wrote itself needs no sync, and a
// sync whose informer cache lags behind its own writes (an older
// generation, a slice it deleted still listed, one it made not listed
// yet) is stale and retried later. The API server bumps a slice's
// generation on every change but to its metadata (labels aside).
//
// Safe for concurrent use.
type sliceTracker struct {
	mu          sync.Mutex
	generations map[types.NamespacedName]map[types.UID]int64
}

func newSliceTracker() *sliceTracker {
	return &sliceTracker{generations: map[types.NamespacedName]map[types.UID]int64{}}
}

// serviceOf is the Service a slice belongs to, by its service-name label.
func serviceOf(s *discoveryv1.EndpointSlice) types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: s.Labels[discoveryv1.LabelServiceName]}
}

// has reports whether the slice is tracked.
func (t *sliceTracker) has(s *discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.generations[serviceOf(s)][s.UID]
	return ok
}

// shouldSync: the slice is not one of the controller's own writes (a
// newer generation, or one it never wrote).
func (t *sliceTracker) shouldSync(s *discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	g, ok := t.generations[serviceOf(s)][s.UID]
	return !ok || s.Generation > g
}

// stale reports whether listed, the Service's slices in the informer
// cache, are behind the controller's own writes.
func (t *sliceTracker) stale(svc *corev1.Service, listed []*discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	gens, ok := t.generations[types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}]
	if !ok {
		return false
	}
	seen := map[types.UID]bool{}
	for _, s := range listed {
		seen[s.UID] = true
		if g, ok := gens[s.UID]; ok && (g == deletionExpected || g > s.Generation) {
			return true
		}
	}
	for uid, g := range gens {
		if g != deletionExpected && !seen[uid] {
			return true
		}
	}
	return false
}

// update records a slice the controller created or updated.
func (t *sliceTracker) update(s *discoveryv1.EndpointSlice) { t.set(s, s.Generation) }

// expectDeletion records a slice the controller deleted.
func (t *sliceTracker) expectDeletion(s *discoveryv1.EndpointSlice) { t.set(s, deletionExpected) }

func (t *sliceTracker) set(s *discoveryv1.EndpointSlice, g int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	nn := serviceOf(s)
	if t.generations[nn] == nil {
		t.generations[nn] = map[types.UID]int64{}
	}
	t.generations[nn][s.UID] = g
}

// handleDeletion forgets a deleted slice; it reports whether the
// controller expected the deletion (false: someone else deleted it, the
// Service needs a sync).
func (t *sliceTracker) handleDeletion(s *discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	gens, ok := t.generations[serviceOf(s)]
	if !ok {
		return true
	}
	g, ok := gens[s.UID]
	delete(gens, s.UID)
	return !ok || g == deletionExpected
}

// deleteService forgets the Service's slices.
func (t *sliceTracker) deleteService(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.generations, types.NamespacedName{Namespace: namespace, Name: name})
}
