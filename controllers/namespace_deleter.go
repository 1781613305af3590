package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
)

// namespaceDeleter deletes everything in a namespace being deleted and
// then drops the kubernetes finalizer, as upstream's
// namespacedResourcesDeleter (pkg/controller/namespace/deletion).
type namespaceDeleter struct {
	namespaces corev1client.NamespaceInterface
	pods       corev1client.PodsGetter
	// meta lists and deletes every other resource by its metadata.
	meta metadata.Interface
	// discover is the API server's namespaced resources, the preferred
	// version of each group (upstream's ServerPreferredNamespacedResources).
	discover func() ([]*metav1.APIResourceList, error)
	// scale divides a period by the speed.
	scale func(time.Duration) time.Duration
}

// namespaceDeletion is one sync of one namespace: what the deleter did,
// for the controller's Action.
type namespaceDeletion struct {
	name     string
	decision string
	writes   []string
	// collected are the resources emptied by one deletecollection each.
	collected []string
}

// allWrites are the writes, the deletecollections first, in one line.
func (d *namespaceDeletion) allWrites() []string {
	if len(d.collected) == 0 {
		return d.writes
	}
	line := fmt.Sprintf("DELETE (deletecollection, propagationPolicy Background) in %s → OK: %s", d.name, strings.Join(d.collected, ", "))
	return append([]string{line}, d.writes...)
}

// wrote records one API call.
func (d *namespaceDeletion) wrote(format string, args ...any) {
	d.writes = append(d.writes, fmt.Sprintf(format, args...))
}

// outcome is the decision, with the sync's error if there was one
// (content still going is the decision's own news).
func (d *namespaceDeletion) outcome(err error) string {
	var remaining *ResourcesRemainingError
	if err == nil || errors.As(err, &remaining) {
		return d.decision
	}
	if d.decision == "" {
		return err.Error()
	}
	return d.decision + ": " + err.Error()
}

// delete works on one namespace: nothing if it is gone or not being
// deleted; else phase Terminating, its content deleted, and once none
// is left the kubernetes finalizer dropped through namespaces/finalize
// (which removes the namespace when no other finalizer holds it). It
// returns a *ResourcesRemainingError while content is still going.
func (dl *namespaceDeleter) delete(ctx context.Context, d *namespaceDeletion) error {
	ns, err := dl.namespaces.Get(ctx, d.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || ns.DeletionTimestamp == nil {
		return err
	}
	if ns, err = dl.retryOnConflict(ctx, ns, dl.markTerminating(d)); err != nil || ns.DeletionTimestamp.IsZero() {
		return ignoreNotFound(err)
	}
	if len(ns.Spec.Finalizers) == 0 {
		return nil
	}
	estimate, err := dl.deleteAllContent(ctx, ns, d)
	if err != nil {
		return err
	}
	if estimate > 0 {
		return &ResourcesRemainingError{Estimate: estimate}
	}
	d.decision = "namespace " + d.name + " is empty: dropping the " + string(corev1.FinalizerKubernetes) + " finalizer"
	_, err = dl.retryOnConflict(ctx, ns, dl.finalize(d))
	return ignoreNotFound(err)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// namespaceUpdate is one write to a namespace, tried again on conflict.
type namespaceUpdate func(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error)

// retryOnConflict runs update, reading the namespace again after each
// conflict; the namespace's UID changing in between is an error.
func (dl *namespaceDeleter) retryOnConflict(ctx context.Context, ns *corev1.Namespace, update namespaceUpdate) (*corev1.Namespace, error) {
	for {
		out, err := update(ctx, ns)
		if !apierrors.IsConflict(err) {
			return out, err
		}
		latest, err := dl.namespaces.Get(ctx, ns.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if latest.UID != ns.UID {
			return nil, fmt.Errorf("namespace uid has changed across retries")
		}
		ns = latest
	}
}

// markTerminating sets phase Terminating if the namespace lacks it.
func (dl *namespaceDeleter) markTerminating(d *namespaceDeletion) namespaceUpdate {
	return func(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
		if ns.DeletionTimestamp.IsZero() || ns.Status.Phase == corev1.NamespaceTerminating {
			return ns, nil
		}
		n := ns.DeepCopy()
		n.Status.Phase = corev1.NamespaceTerminating
		d.wrote("PUT namespaces/%s/status (phase Terminating)", ns.Name)
		return dl.namespaces.UpdateStatus(ctx, n, metav1.UpdateOptions{})
	}
}

// finalize removes the kubernetes finalizer from spec.finalizers (the
// others stay, sorted, as upstream leaves them).
func (dl *namespaceDeleter) finalize(d *namespaceDeletion) namespaceUpdate {
	return func(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
		keep := sets.New[string]()
		for _, f := range ns.Spec.Finalizers {
			if f != corev1.FinalizerKubernetes {
				keep.Insert(string(f))
			}
		}
		n := corev1.Namespace{ObjectMeta: ns.ObjectMeta, Spec: ns.Spec}
		n.Spec.Finalizers = make([]corev1.FinalizerName, 0, keep.Len())
		for _, f := range sets.List(keep) {
			n.Spec.Finalizers = append(n.Spec.Finalizers, corev1.FinalizerName(f))
		}
		out, err := dl.namespaces.Finalize(ctx, &n, metav1.UpdateOptions{})
		d.wrote("PUT namespaces/%s/finalize (spec.finalizers [%s]) → %s", ns.Name, strings.Join(sets.List(keep), " "), writeOutcome(err))
		return out, ignoreNotFound(err)
	}
}

// writeOutcome is how a write's outcome reads in an Action.
func writeOutcome(err error) string {
	if err == nil {
		return "OK"
	}
	if s, ok := err.(apierrors.APIStatus); ok {
		return fmt.Sprintf("%d %s", s.Status().Code, s.Status().Reason)
	}
	return err.Error()
}

// estimatePods is how many more seconds the namespace's pods may take to
// stop: the longest terminationGracePeriodSeconds among those not
// finished, or 0 once that long has passed since the namespace's
// deletion (upstream's estimateGracefulTerminationForPods; kubesim
// scales the comparison by the speed).
func (dl *namespaceDeleter) estimatePods(ctx context.Context, ns string, deletedAt metav1.Time) (int64, error) {
	pods, err := dl.pods.Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	var estimate int64
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g > estimate {
			estimate = *g
		}
	}
	if time.Since(deletedAt.Time) >= dl.scale(time.Duration(estimate)*time.Second) {
		return 0, nil
	}
	return estimate, nil
}
