package controllers

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// replicaSetStatus computes rs's status from its active pods, as
// upstream's calculateStatus; a failed create or delete sets the
// ReplicaFailure condition, a sync without one clears it.
func replicaSetStatus(rs *appsv1.ReplicaSet, pods []*corev1.Pod, manageErr error, now time.Time) appsv1.ReplicaSetStatus {
	status := *rs.Status.DeepCopy()
	templateLabels := labels.Set(rs.Spec.Template.Labels).AsSelectorPreValidated()
	var fully, ready, available int32
	for _, p := range pods {
		if templateLabels.Matches(labels.Set(p.Labels)) {
			fully++
		}
		if isPodReady(p) {
			ready++
			if isPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	status.Replicas = int32(len(pods))
	status.FullyLabeledReplicas, status.ReadyReplicas, status.AvailableReplicas = fully, ready, available
	status.Conditions = replicaFailure(status.Conditions, rs, len(pods), manageErr)
	return status
}

// replicaFailure sets or clears the ReplicaFailure condition.
func replicaFailure(conds []appsv1.ReplicaSetCondition, rs *appsv1.ReplicaSet, have int, manageErr error) []appsv1.ReplicaSetCondition {
	var kept []appsv1.ReplicaSetCondition
	var failure *appsv1.ReplicaSetCondition
	for i := range conds {
		if conds[i].Type == appsv1.ReplicaSetReplicaFailure {
			failure = &conds[i]
			continue
		}
		kept = append(kept, conds[i])
	}
	if manageErr == nil {
		return kept
	}
	if failure != nil {
		return append(kept, *failure)
	}
	reason := "FailedCreate"
	if have > int(*rs.Spec.Replicas) {
		reason = "FailedDelete"
	}
	return append(kept, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.Now(), Reason: reason, Message: manageErr.Error()})
}

// updateStatus writes status and observedGeneration unless they are
// already stored; on a conflict it tries once more on a fresh copy, as
// upstream (statusUpdateRetries = 1).
func (c *ReplicaSetController) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, status appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, error) {
	status.ObservedGeneration = rs.Generation
	if equality.Semantic.DeepEqual(rs.Status, status) {
		return rs, nil
	}
	ns, name := rs.Namespace, rs.Name
	rsc := c.client.AppsV1().ReplicaSets(ns)
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		status.ObservedGeneration = rs.Generation
		rs.Status = status
		var updated *appsv1.ReplicaSet
		if updated, err = rsc.UpdateStatus(ctx, rs, metav1.UpdateOptions{}); err == nil {
			return updated, nil
		}
		if rs, err = rsc.Get(ctx, name, metav1.GetOptions{}); err != nil {
			break
		}
	}
	return nil, fmt.Errorf("controllers: replicaset %s/%s status: %w", ns, name, err)
}
