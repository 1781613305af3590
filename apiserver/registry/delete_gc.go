package registry

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gcFinalizers returns the finalizers a delete with opts leaves on an
// object that has finalizers, and whether they differ from them, as
// kube-apiserver's store does for the garbage collector
// (deletionFinalizersForGarbageCollection): "orphan" when the dependents
// are to be orphaned, "foregroundDeletion" when they are to be deleted
// first; the garbage collector removes them once it has done so. The
// options win (orphanDependents, then propagationPolicy), then a
// finalizer the object already has, then the resource's default:
// orphanByDefault (Resource.OrphanByDefault, batch/v1 jobs) or
// DeleteDependents (background), the policy of apps/v1 and most of core/v1.
func gcFinalizers(finalizers []string, opts *metav1.DeleteOptions, orphanByDefault bool) (bool, []string) {
	orphan, foreground := gcPolicy(finalizers, opts, orphanByDefault)
	out := make([]string, 0, len(finalizers)+1)
	for _, f := range finalizers {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sameSet(finalizers, out) {
		return false, finalizers
	}
	return true, out
}

// gcPolicy is what a delete with opts asks of the garbage collector, as
// upstream's shouldOrphanDependents and shouldDeleteDependentsInForeground
// decide it.
func gcPolicy(finalizers []string, opts *metav1.DeleteOptions, orphanByDefault bool) (orphan, foreground bool) {
	if opts != nil && opts.OrphanDependents != nil { //nolint:staticcheck // still accepted, as upstream
		return *opts.OrphanDependents, false //nolint:staticcheck
	}
	if opts != nil && opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case metav1.DeletePropagationOrphan:
			return true, false
		case metav1.DeletePropagationForeground:
			return false, true
		case metav1.DeletePropagationBackground:
			return false, false
		}
	}
	for _, f := range finalizers {
		switch f {
		case metav1.FinalizerOrphanDependents:
			return true, false
		case metav1.FinalizerDeleteDependents:
			return false, true
		}
	}
	return orphanByDefault, false
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}
