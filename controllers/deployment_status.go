package controllers

import (
	"context"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deploymentStatus computes d's status from its ReplicaSets' (all may
// hold a nil new one), with the Available condition: True
// (MinimumReplicasAvailable) while at least replicas - maxUnavailable
// pods are available.
func deploymentStatus(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	available := sumReplicas(all, availableReplicas)
	status := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumReplicas(all, statusReplicas),
		UpdatedReplicas:     sumReplicas([]*appsv1.ReplicaSet{newRS}, statusReplicas),
		ReadyReplicas:       sumReplicas(all, readyReplicas),
		AvailableReplicas:   available,
		UnavailableReplicas: max(sumReplicas(all, specReplicas)-available, 0),
		TerminatingReplicas: terminatingReplicas(all),
		CollisionCount:      d.Status.CollisionCount,
		Conditions:          append([]appsv1.DeploymentCondition(nil), d.Status.Conditions...),
	}
	if available >= *d.Spec.Replicas-maxUnavailable(d) {
		setDeploymentCondition(&status, newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, ReasonMinimumAvailable, "Deployment has minimum availability."))
	} else {
		setDeploymentCondition(&status, newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, ReasonMinimumUnavailable, "Deployment does not have minimum availability."))
	}
	return status
}

// terminatingReplicas sums the ReplicaSets' terminatingReplicas; nil if
// one that has reported a status has not counted them.
func terminatingReplicas(all []*appsv1.ReplicaSet) *int32 {
	var n int32
	for _, rs := range all {
		switch {
		case rs == nil, rs.Status.ObservedGeneration == 0 && rs.Status.TerminatingReplicas == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

// syncStatus writes d's status if it changed.
func (c *DeploymentController) syncStatus(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	status := deploymentStatus(d, all, newRS)
	if reflect.DeepEqual(d.Status, status) {
		return nil
	}
	d.Status = status
	_, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// syncRolloutStatus writes d's status with the Progressing condition, as
// upstream's syncRolloutStatus: NewReplicaSetAvailable once the rollout
// is complete, ReplicaSetUpdated while it makes progress,
// ProgressDeadlineExceeded once progressDeadlineSeconds pass without;
// and ReplicaFailure from a ReplicaSet's.
func (c *DeploymentController) syncRolloutStatus(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	status := deploymentStatus(d, all, newRS)
	if !hasProgressDeadline(d) {
		removeDeploymentCondition(&status, appsv1.DeploymentProgressing)
	}
	current := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	complete := status.Replicas == status.UpdatedReplicas && current != nil && current.Reason == ReasonNewRSAvailable
	if hasProgressDeadline(d) && !complete {
		setProgressing(d, &status, newRS, current)
	}
	if failures := replicaFailures(all, newRS); len(failures) > 0 {
		setDeploymentCondition(&status, failures[0])
	} else {
		removeDeploymentCondition(&status, appsv1.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, status) {
		c.requeueStuck(d, status)
		return nil
	}
	d.Status = status
	_, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// setProgressing sets the Progressing condition of status.
func setProgressing(d *appsv1.Deployment, status *appsv1.DeploymentStatus, newRS *appsv1.ReplicaSet, current *appsv1.DeploymentCondition) {
	subject := fmt.Sprintf("Deployment %q", d.Name)
	if newRS != nil {
		subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	switch {
	case deploymentComplete(d, status):
		setDeploymentCondition(status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewRSAvailable, subject+" has successfully progressed."))
	case deploymentProgressing(d, status):
		cond := newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated, subject+" is progressing.")
		if current != nil {
			if current.Status == corev1.ConditionTrue {
				cond.LastTransitionTime = current.LastTransitionTime
			}
			removeDeploymentCondition(status, appsv1.DeploymentProgressing)
		}
		setDeploymentCondition(status, cond)
	case deploymentTimedOut(d, status):
		setDeploymentCondition(status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonTimedOut, subject+" has timed out progressing."))
	}
}

// requeueStuck looks at d again when its progress deadline would pass.
func (c *DeploymentController) requeueStuck(d *appsv1.Deployment, status appsv1.DeploymentStatus) {
	cur := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cur == nil || deploymentComplete(d, &status) || cur.Reason == ReasonTimedOut {
		return
	}
	after := time.Until(cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second))
	if after < time.Second {
		if key, err := keyOf(d); err == nil {
			c.queue.AddRateLimited(key)
		}
		return
	}
	c.enqueueAfter(d, after+time.Second)
}

// replicaFailures are the ReplicaFailure conditions of the new
// ReplicaSet, else of any.
func replicaFailures(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
	collect := func(rss []*appsv1.ReplicaSet) []appsv1.DeploymentCondition {
		var out []appsv1.DeploymentCondition
		for _, rs := range rss {
			if rs == nil {
				continue
			}
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure {
					out = append(out, appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(c.Type), Status: c.Status,
						LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
				}
			}
		}
		return out
	}
	if out := collect([]*appsv1.ReplicaSet{newRS}); len(out) > 0 {
		return out
	}
	return collect(all)
}

// deploymentComplete: every replica is updated and available, and the
// status is of the current generation.
func deploymentComplete(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	return s.UpdatedReplicas == *d.Spec.Replicas && s.Replicas == *d.Spec.Replicas &&
		s.AvailableReplicas == *d.Spec.Replicas && s.ObservedGeneration >= d.Generation
}

// deploymentProgressing: more updated, ready or available pods than
// before, or fewer old ones.
func deploymentProgressing(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	old := d.Status
	return s.UpdatedReplicas > old.UpdatedReplicas || s.Replicas-s.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		s.ReadyReplicas > old.ReadyReplicas || s.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut: no progress for progressDeadlineSeconds.
func deploymentTimedOut(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := deploymentCondition(*s, appsv1.DeploymentProgressing)
	switch {
	case cond == nil || cond.Reason == ReasonNewRSAvailable:
		return false
	case cond.Reason == ReasonTimedOut:
		return true
	}
	return cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Before(time.Now())
}

func newDeploymentCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, msg string) appsv1.DeploymentCondition {
	now := metav1.Now()
	return appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: now, LastTransitionTime: now, Reason: reason, Message: msg}
}

func deploymentCondition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			c := s.Conditions[i]
			return &c
		}
	}
	return nil
}

// setDeploymentCondition sets cond unless one of the same status and
// reason is there; a condition of the same status keeps its transition
// time.
func setDeploymentCondition(s *appsv1.DeploymentStatus, cond appsv1.DeploymentCondition) {
	cur := deploymentCondition(*s, cond.Type)
	if cur != nil && cur.Status == cond.Status && cur.Reason == cond.Reason {
		return
	}
	if cur != nil && cur.Status == cond.Status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	removeDeploymentCondition(s, cond.Type)
	s.Conditions = append(s.Conditions, cond)
}

func removeDeploymentCondition(s *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var kept []appsv1.DeploymentCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	s.Conditions = kept
}

func keyOf(obj metav1.Object) (string, error) { return obj.GetNamespace() + "/" + obj.GetName(), nil }
