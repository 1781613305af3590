package controllers

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// rolloutRolling takes one step of a rolling update, as upstream's
// rolloutRolling: scale the new ReplicaSet up as far as maxSurge allows;
// if nothing was scaled up, scale old ones down as far as maxUnavailable
// allows; once complete, clean up old revisions; then the status.
func (c *DeploymentController) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndRevision(ctx, d, rss, true)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	if up, err := c.reconcileNewReplicaSet(ctx, d, all, newRS); err != nil || up {
		if err != nil {
			return err
		}
		return c.syncRolloutStatus(ctx, d, all, newRS)
	}
	if down, err := c.reconcileOldReplicaSets(ctx, d, all, activeReplicaSets(oldRSs), newRS); err != nil || down {
		if err != nil {
			return err
		}
		return c.syncRolloutStatus(ctx, d, all, newRS)
	}
	if deploymentComplete(d, &d.Status) {
		if err := c.cleanup(ctx, d, oldRSs); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, d, all, newRS)
}

// reconcileNewReplicaSet scales the new ReplicaSet towards d's replicas.
func (c *DeploymentController) reconcileNewReplicaSet(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	switch {
	case *newRS.Spec.Replicas == *d.Spec.Replicas:
		return false, nil
	case *newRS.Spec.Replicas > *d.Spec.Replicas:
		scaled, _, err := c.scaleReplicaSet(ctx, newRS, *d.Spec.Replicas, d, false)
		return scaled, err
	}
	count, err := newRSReplicas(d, all, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := c.scaleReplicaSet(ctx, newRS, count, d, false)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down while at least
// replicas - maxUnavailable pods stay available (the new ReplicaSet's
// unavailable pods count against it): first their unhealthy pods, then
// available ones, oldest ReplicaSet first.
func (c *DeploymentController) reconcileOldReplicaSets(ctx context.Context, d *appsv1.Deployment, all, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	if sumReplicas(oldRSs, specReplicas) == 0 {
		return false, nil
	}
	minAvailable := *d.Spec.Replicas - maxUnavailable(d)
	newUnavailable := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := sumReplicas(all, specReplicas) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := c.cleanupUnhealthyReplicas(ctx, d, oldRSs, maxScaledDown)
	if err != nil {
		return false, nil
	}
	scaled, err := c.scaleDownOldReplicaSets(ctx, d, append(oldRSs, newRS), oldRSs)
	if err != nil {
		return false, nil
	}
	return cleaned+scaled > 0, nil
}

// cleanupUnhealthyReplicas scales old ReplicaSets down by their
// unavailable pods, at most limit in all, oldest first.
func (c *DeploymentController) cleanupUnhealthyReplicas(ctx context.Context, d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet, limit int32) ([]*appsv1.ReplicaSet, int32, error) {
	byCreation(oldRSs)
	var total int32
	for i, rs := range oldRSs {
		if total >= limit {
			break
		}
		if *rs.Spec.Replicas == 0 || *rs.Spec.Replicas == rs.Status.AvailableReplicas {
			continue
		}
		n := min(limit-total, *rs.Spec.Replicas-rs.Status.AvailableReplicas)
		if n < 0 {
			// A status behind its spec (more available than wanted):
			// upstream refuses, and so scales nothing down this sync.
			return nil, 0, fmt.Errorf("controllers: cleaning up unhealthy replicas of %s/%s: %d -> %d is no scale-down",
				rs.Namespace, rs.Name, *rs.Spec.Replicas, *rs.Spec.Replicas-n)
		}
		_, updated, err := c.scaleReplicaSet(ctx, rs, *rs.Spec.Replicas-n, d, false)
		if err != nil {
			return nil, total, err
		}
		total += n
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// scaleDownOldReplicaSets scales old ReplicaSets down by as many
// available pods as exceed replicas - maxUnavailable, oldest first.
func (c *DeploymentController) scaleDownOldReplicaSets(ctx context.Context, d *appsv1.Deployment, all, oldRSs []*appsv1.ReplicaSet) (int32, error) {
	minAvailable := *d.Spec.Replicas - maxUnavailable(d)
	available := sumReplicas(all, availableReplicas)
	if available <= minAvailable {
		return 0, nil
	}
	byCreation(oldRSs)
	want, total := available-minAvailable, int32(0)
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		if *rs.Spec.Replicas == 0 {
			continue
		}
		n := min(*rs.Spec.Replicas, want-total)
		if _, _, err := c.scaleReplicaSet(ctx, rs, *rs.Spec.Replicas-n, d, false); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
