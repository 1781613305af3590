package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	pdbhelper "k8s.io/component-helpers/apps/poddisruptionbudget"
	podv1util "k8s.io/kubernetes/pkg/api/v1/pod"
)

// budgetsOf returns the budgets of the pod's namespace whose selector
// matches its labels (a budget whose selector does not parse covers none).
func (e *Evictor) budgetsOf(ctx context.Context, pod *corev1.Pod) ([]policyv1.PodDisruptionBudget, error) {
	obj, err := e.pdbs.List(ctx, pod.Namespace, nil)
	if err != nil {
		return nil, err
	}
	var out []policyv1.PodDisruptionBudget
	for _, pdb := range obj.(*policyv1.PodDisruptionBudgetList).Items {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || pdb.Namespace != pod.Namespace || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out, nil
}

// takeDisruption takes one disruption from pdb for the pod, rereading the
// budget after each conflict, as upstream's loop around checkAndDecrement.
func (e *Evictor) takeDisruption(ctx context.Context, pod *corev1.Pod, pdb *policyv1.PodDisruptionBudget, dryRun bool) error {
	refresh := false
	return retry.RetryOnConflict(EvictionsRetry, func() error {
		if refresh {
			obj, err := e.pdbs.Get(ctx, pdb.Namespace, pdb.Name, nil)
			if err != nil {
				return err
			}
			pdb = obj.(*policyv1.PodDisruptionBudget)
		}
		if err := e.checkAndDecrement(ctx, pod.Name, *pdb.DeepCopy(), dryRun); err != nil {
			refresh = true
			return err
		}
		return nil
	})
}

// checkAndDecrement refuses the eviction if pdb allows no disruption now
// (upstream's errors, each with a DisruptionBudget cause), else writes
// pdb's status with one disruption fewer and the pod among its disrupted
// pods (not on a dry run); a conflict means the budget changed meanwhile.
func (e *Evictor) checkAndDecrement(ctx context.Context, podName string, pdb policyv1.PodDisruptionBudget, dryRun bool) error {
	if pdb.Status.ObservedGeneration < pdb.Generation {
		return tooManyRequestsProcessing(pdb.Name)
	}
	if pdb.Status.DisruptionsAllowed < 0 {
		return budgetForbidden(pdb.Name, "pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	}
	if len(pdb.Status.DisruptedPods) > MaxDisruptedPodSize {
		return budgetForbidden(pdb.Name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
			"too many pending evictions not confirmed by PDB controller")
	}
	if pdb.Status.DisruptionsAllowed == 0 {
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: noDisruptionMessage(&pdb)})
		return err
	}
	pdb.Status.DisruptionsAllowed--
	if pdb.Status.DisruptionsAllowed == 0 {
		pdbhelper.UpdateDisruptionAllowedCondition(&pdb)
	}
	if dryRun {
		return nil
	}
	if pdb.Status.DisruptedPods == nil {
		pdb.Status.DisruptedPods = make(map[string]metav1.Time)
	}
	pdb.Status.DisruptedPods[podName] = metav1.Time{Time: time.Now()}
	_, _, err := e.pdbStatus.Update(ctx, pdb.Namespace, pdb.Name, func(context.Context, runtime.Object) (runtime.Object, error) {
		return &pdb, nil
	}, nil, nil, Options{})
	return err
}

// noDisruptionMessage is the cause of a 429 for a budget that allows no
// disruption: why, as upstream words it.
func noDisruptionMessage(pdb *policyv1.PodDisruptionBudget) string {
	c := meta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	switch {
	case c != nil && c.Status == metav1.ConditionFalse && len(c.Message) > 0 && c.Reason == policyv1.SyncFailedReason:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, c.Message)
	case pdb.Status.CurrentHealthy <= pdb.Status.DesiredHealthy:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy)
	case c != nil && c.Status == metav1.ConditionFalse && len(c.Message) > 0:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, c.Reason, c.Message)
	}
	return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
}

// tooManyRequestsProcessing is the 429 of a budget its controller has not
// caught up with (or whose unready pod changed meanwhile).
func tooManyRequestsProcessing(name string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: policyv1.DisruptionBudgetCause, Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name)})
	return err
}

// budgetForbidden is the 403 of a budget in a state that allows no
// eviction (reason), with the cause's text why.
func budgetForbidden(name, reason, why string) error {
	err := apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), name, errors.New(reason))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: policyv1.DisruptionBudgetCause, Message: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: %s", name, why)})
	return err
}

// markAndDelete gives the pod the DisruptionTarget condition (unless o is
// a dry run), checking o's preconditions against the pod then, and
// deletes it with o (its resourceVersion precondition moved to the
// condition's write, if it had one).
func (e *Evictor) markAndDelete(ctx context.Context, namespace, name string, o *metav1.DeleteOptions) error {
	if !isDryRun(o.DryRun) {
		out, _, err := e.podStatus.Update(ctx, namespace, name, func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
			pod := cur.(*corev1.Pod)
			if err := checkEvictionPreconditions(pod, o.Preconditions); err != nil {
				return nil, err
			}
			podv1util.UpdatePodCondition(&pod.Status, &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
				Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
			return pod, nil
		}, nil, nil, Options{})
		if err != nil {
			return err
		}
		if !resourceVersionIsUnset(o) {
			o = withResourceVersion(o, out.(*corev1.Pod).ResourceVersion)
		}
	}
	_, _, err := e.pods.Delete(ctx, namespace, name, nil, o)
	return err
}

// checkEvictionPreconditions is upstream's check of the eviction's
// preconditions against the latest pod, with its messages.
func checkEvictionPreconditions(pod *corev1.Pod, p *metav1.Preconditions) error {
	if p == nil {
		return nil
	}
	gr := corev1.Resource("Pod")
	if uid := p.UID; uid != nil && len(*uid) > 0 && *uid != pod.UID {
		return apierrors.NewConflict(gr, pod.Name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, pod.UID))
	}
	if rv := p.ResourceVersion; rv != nil && len(*rv) > 0 && *rv != pod.ResourceVersion {
		return apierrors.NewConflict(gr, pod.Name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, pod.ResourceVersion))
	}
	return nil
}
