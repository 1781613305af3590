package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// preempt evicts the chosen candidate's victims for preemptor, as
// upstream's preemption executor does with each: the condition
// DisruptionTarget=True (reason PreemptionByScheduler, "<scheduler>:
// preempting to accommodate a higher priority pod") patched into its
// status, then a delete (with its default grace period: the kubelet
// stops it), then a Normal event Preempted on the victim, "Preempted by
// pod <preemptor's uid> on node <node>". A victim already gone is
// skipped. It stops at the first other error.
//
// kube-scheduler v1.37 does this in a goroutine of its own (async
// preemption) and keeps the preemptor out of the queue meanwhile;
// kubesim does it in the scheduling loop before the attempt is settled,
// which has the same effect.
func (s *Scheduler) preempt(ctx context.Context, preemptor *corev1.Pod, c *preemptionCandidate) error {
	logger := klog.FromContext(ctx)
	for _, victim := range c.victims {
		if victim.DeletionTimestamp != nil {
			continue // already on its way out
		}
		status := victim.Status.DeepCopy()
		setPodCondition(status, corev1.PodCondition{
			Type:               corev1.DisruptionTarget,
			Status:             corev1.ConditionTrue,
			ObservedGeneration: victim.Generation,
			Reason:             corev1.PodReasonPreemptionByScheduler,
			Message:            fmt.Sprintf("%s: preempting to accommodate a higher priority pod", s.name),
			LastTransitionTime: metav1.NewTime(s.now()),
		})
		if err := patchPodStatus(ctx, s.client, victim, status); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("adding the DisruptionTarget condition to %s/%s: %w", victim.Namespace, victim.Name, err)
		}
		if err := s.client.CoreV1().Pods(victim.Namespace).Delete(ctx, victim.Name, metav1.DeleteOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("deleting the victim %s/%s: %w", victim.Namespace, victim.Name, err)
		}
		logger.V(2).Info("Preemptor Pod preempted victim Pod", "preemptor", klog.KObj(preemptor), "victim", klog.KObj(victim), "node", c.node)
		s.eventf(victim, corev1.EventTypeNormal, "Preempted", "Preempted by pod %v on node %v", preemptor.UID, c.node)
	}
	return nil
}

// preemptInLoop carries out the preemption an attempt decided on, if
// any (and if the scheduler talks to an API), before the attempt is
// settled: the preemptor is then nominated to the node. A failure is
// logged and the preemptor is not nominated.
func (s *Scheduler) preemptInLoop(ctx context.Context, a *attempt) {
	p := a.preemption
	if p == nil || p.chosen == nil || s.client == nil {
		return
	}
	if err := s.preempt(ctx, a.pod, p.chosen); err != nil {
		klog.FromContext(ctx).Error(err, "Preemption failed", "preemptor", klog.KObj(a.pod), "node", p.chosen.node)
		p.chosen, p.override = nil, false
		return
	}
	s.clearLowerNominations(ctx, a.pod, p.chosen.node)
}

// clearLowerNominations clears status.nominatedNodeName of the pods of
// lower priority than preemptor nominated to node, as upstream's
// preemption does: they may no longer fit there, and the update sends
// them back to the queue to look elsewhere.
func (s *Scheduler) clearLowerNominations(ctx context.Context, preemptor *corev1.Pod, node string) {
	if s.podLister == nil {
		return
	}
	pods, err := s.podLister.List(labels.Everything())
	if err != nil {
		return
	}
	prio := podPriority(preemptor)
	for _, p := range pods {
		if p.Status.NominatedNodeName != node || p.Spec.NodeName != "" || p.UID == preemptor.UID || podPriority(p) >= prio {
			continue
		}
		status := p.Status.DeepCopy()
		status.NominatedNodeName = ""
		if err := patchPodStatus(ctx, s.client, p, status); err != nil && !apierrors.IsNotFound(err) {
			klog.FromContext(ctx).Error(err, "Clearing the nominated node of a lower-priority pod failed", "pod", klog.KObj(p), "node", node)
		}
	}
}
