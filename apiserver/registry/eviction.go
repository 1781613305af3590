package registry

// The pods/eviction subresource, as upstream's EvictionREST
// (pkg/registry/core/pod/storage/eviction.go): a pod is deleted only if
// the one PodDisruptionBudget that covers it allows a disruption, which
// the eviction takes (status.disruptionsAllowed-1, the pod in
// status.disruptedPods) before the pod gets its DisruptionTarget
// condition and is deleted with the eviction's DeleteOptions.

import (
	"context"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// EvictionGVK is the kind pods/eviction reads and discovery names.
var EvictionGVK = policyv1.SchemeGroupVersion.WithKind("Eviction")

// MaxDisruptedPodSize is how many evictions a budget may hold that its
// controller has not confirmed (upstream's constant).
const MaxDisruptedPodSize = 2000

// EvictionsRetry is upstream's backoff of the conflicts of an eviction:
// the pod's (when the eviction names no resourceVersion) and the budget's.
var EvictionsRetry = wait.Backoff{Steps: 20, Duration: 500 * time.Millisecond, Factor: 1.0, Jitter: 0.1}

// Evictor evicts pods. It is safe for concurrent use.
type Evictor struct {
	pods, podStatus, pdbs, pdbStatus *Store
}

// NewEvictor returns the Evictor of r's pods and budgets.
func NewEvictor(r *Registry) *Evictor {
	return &Evictor{
		pods: r.Store(Pods), podStatus: r.StatusStore(Pods),
		pdbs: r.Store(PodDisruptionBudgets), pdbStatus: r.StatusStore(PodDisruptionBudgets),
	}
}

// Evict evicts pod namespace/name as ev asks (dryRun: the request's
// dryRun option). validate, if set, is the request's validating
// admission, run on ev. It returns the Status to answer (Success, or the
// 500 Failure of a pod that more than one budget covers), or the error:
// 429 TooManyRequests when the budget allows no disruption now.
func (e *Evictor) Evict(ctx context.Context, namespace, name string, ev *policyv1.Eviction, dryRun []string, validate ValidateObjectFunc) (*metav1.Status, error) {
	if name != ev.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if ev.DeleteOptions != nil && ptr.Deref(ev.DeleteOptions.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		return nil, apierrors.NewInvalid(EvictionGVK.GroupKind(), name, field.ErrorList{field.Invalid(
			field.NewPath("deleteOptions").Child("ignoreStoreReadErrorWithClusterBreakingPotential"), true,
			"can not be set for pod eviction, try after removing the option")})
	}
	opts, err := propagateDryRun(ev, dryRun)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if validate != nil {
		if err := validate(ctx, ev.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	pod, deleted, err := e.evictIgnoringBudgets(ctx, namespace, name, opts)
	switch {
	case err != nil:
		return nil, err
	case deleted:
		return &metav1.Status{Status: metav1.StatusSuccess}, nil
	}
	return e.evictWithinBudget(ctx, pod, opts)
}

// propagateDryRun returns the DeleteOptions of the eviction's delete:
// the eviction's own, with the request's dryRun when they name none.
func propagateDryRun(ev *policyv1.Eviction, dryRun []string) (*metav1.DeleteOptions, error) {
	switch {
	case ev.DeleteOptions == nil:
		return &metav1.DeleteOptions{DryRun: dryRun}, nil
	case len(ev.DeleteOptions.DryRun) == 0:
		ev.DeleteOptions.DryRun = dryRun
		return ev.DeleteOptions, nil
	case len(dryRun) == 0:
		return ev.DeleteOptions, nil
	case !reflect.DeepEqual(dryRun, ev.DeleteOptions.DryRun):
		return nil, fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", dryRun, ev.DeleteOptions.DryRun) //nolint:staticcheck // upstream's text
	}
	return ev.DeleteOptions, nil
}

// evictIgnoringBudgets deletes the pod at once if no budget applies to
// it (it has finished, is Pending, or is being deleted), retrying on the
// pod's conflicts unless opts name a resourceVersion. It returns the pod
// read and whether it deleted it.
func (e *Evictor) evictIgnoringBudgets(ctx context.Context, namespace, name string, opts *metav1.DeleteOptions) (*corev1.Pod, bool, error) {
	var pod *corev1.Pod
	deleted := false
	shouldRetry := apierrors.IsConflict
	if !resourceVersionIsUnset(opts) {
		shouldRetry = func(error) bool { return false }
	}
	err := retry.OnError(EvictionsRetry, shouldRetry, func() error {
		obj, err := e.pods.Get(ctx, namespace, name, nil)
		if err != nil {
			return err
		}
		pod = obj.(*corev1.Pod)
		if !canIgnorePDB(pod) {
			return nil
		}
		o := opts
		if shouldEnforceResourceVersion(pod) && resourceVersionIsUnset(opts) {
			o = withResourceVersion(opts, pod.ResourceVersion)
		}
		if err := e.markAndDelete(ctx, namespace, name, o); err != nil {
			return err
		}
		deleted = true
		return nil
	})
	return pod, deleted, err
}

// evictWithinBudget evicts a running pod: it takes a disruption from the
// one budget that covers the pod, if any, then deletes it.
func (e *Evictor) evictWithinBudget(ctx context.Context, pod *corev1.Pod, opts *metav1.DeleteOptions) (*metav1.Status, error) {
	pdbs, err := e.budgetsOf(ctx, pod)
	if err != nil {
		return nil, err
	}
	if len(pdbs) > 1 {
		return &metav1.Status{Status: metav1.StatusFailure, Code: 500,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}, nil
	}
	var pdbName string
	unhealthy := false // an unready pod the budget lets go: deleted only as it was read
	if len(pdbs) == 1 {
		pdb := &pdbs[0]
		pdbName = pdb.Name
		unhealthy = unhealthyAndAllowed(pod, pdb)
		if !unhealthy {
			if err := e.takeDisruption(ctx, pod, pdb, isDryRun(opts.DryRun)); err != nil {
				return nil, err
			}
		}
	}
	o := opts
	if unhealthy {
		o = withResourceVersion(opts, pod.ResourceVersion)
	}
	if err := e.markAndDelete(ctx, pod.Namespace, pod.Name, o); err != nil {
		if apierrors.IsConflict(err) && unhealthy && resourceVersionIsUnset(opts) {
			return nil, tooManyRequestsProcessing(pdbName)
		}
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// unhealthyAndAllowed reports whether pod is not ready and pdb lets such
// a pod go without taking a disruption: its unhealthyPodEvictionPolicy is
// AlwaysAllow, or it has the healthy pods it needs.
func unhealthyAndAllowed(pod *corev1.Pod, pdb *policyv1.PodDisruptionBudget) bool {
	if podReady(pod) {
		return false
	}
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
		return true
	}
	return pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0
}

// podReady reports whether the pod's Ready condition is true.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// canIgnorePDB reports whether no budget applies to the pod's eviction:
// it has finished, has not started (Pending), or is being deleted.
func canIgnorePDB(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// shouldEnforceResourceVersion reports whether a pod deleted without its
// budget must still be the one read (not so once it has finished or is
// being deleted).
func shouldEnforceResourceVersion(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return false
	}
	return pod.DeletionTimestamp == nil
}

func resourceVersionIsUnset(o *metav1.DeleteOptions) bool {
	return o.Preconditions == nil || o.Preconditions.ResourceVersion == nil
}

// withResourceVersion returns a copy of o with the resourceVersion
// precondition rv.
func withResourceVersion(o *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	o = o.DeepCopy()
	if o.Preconditions == nil {
		o.Preconditions = &metav1.Preconditions{}
	}
	o.Preconditions.ResourceVersion = &rv
	return o
}
