package controllers

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// rolloutRecreate takes one step of a Recreate rollout, as upstream's:
// scale every old ReplicaSet to 0, wait until none of their pods is
// left (not even a terminating one), then create or scale the new
// ReplicaSet to d's replicas.
func (c *DeploymentController) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndRevision(ctx, d, rss, false)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	scaled := false
	for _, rs := range activeReplicaSets(oldRSs) {
		down, _, err := c.scaleReplicaSet(ctx, rs, 0, d, false)
		if err != nil {
			return err
		}
		scaled = scaled || down
	}
	if scaled {
		return c.syncRolloutStatus(ctx, d, all, newRS)
	}
	running, err := c.oldPodsRunning(d, rss, newRS, oldRSs)
	if err != nil || running {
		if err != nil {
			return err
		}
		return c.syncRolloutStatus(ctx, d, all, newRS)
	}
	if newRS == nil {
		if newRS, oldRSs, err = c.replicaSetsAndRevision(ctx, d, rss, true); err != nil {
			return err
		}
		all = append(oldRSs, newRS)
	}
	if _, _, err := c.scaleReplicaSet(ctx, newRS, *d.Spec.Replicas, d, false); err != nil {
		return err
	}
	if deploymentComplete(d, &d.Status) {
		if err := c.cleanup(ctx, d, oldRSs); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, d, all, newRS)
}

// oldPodsRunning reports whether an old ReplicaSet still has pods, or a
// pod of one is not finished.
func (c *DeploymentController) oldPodsRunning(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) (bool, error) {
	if sumReplicas(oldRSs, statusReplicas) > 0 {
		return true, nil
	}
	pods, err := c.podsByReplicaSet(d, rss)
	if err != nil {
		return false, err
	}
	for uid, list := range pods {
		if newRS != nil && string(newRS.UID) == uid {
			continue
		}
		for _, p := range list {
			if p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
				return true, nil
			}
		}
	}
	return false, nil
}
