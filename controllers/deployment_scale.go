package controllers

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// scale brings the ReplicaSets to d's replicas without a rollout, as
// upstream's scale: the one active (or latest) ReplicaSet takes them
// all; a saturated new one lets the old ones go to 0; during a rolling
// update every active ReplicaSet gets its share of the change, in
// proportion to its size (the rounding left over goes to the largest,
// newest first when adding, oldest first when removing).
func (c *DeploymentController) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	if rs := activeOrLatest(newRS, oldRSs); rs != nil {
		if *rs.Spec.Replicas == *d.Spec.Replicas {
			return nil
		}
		_, _, err := c.scaleReplicaSet(ctx, rs, *d.Spec.Replicas, d, false)
		return err
	}
	if isSaturated(d, newRS) {
		for _, old := range activeReplicaSets(oldRSs) {
			if _, _, err := c.scaleReplicaSet(ctx, old, 0, d, false); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	all := activeReplicaSets(append(oldRSs, newRS))
	sizes := proportionalSizes(d, all)
	for _, rs := range all {
		if _, _, err := c.scaleReplicaSet(ctx, rs, sizes[rs.Name], d, true); err != nil {
			return err
		}
	}
	return nil
}

// proportionalSizes is the size of each active ReplicaSet of all after a
// change of d's replicas; it sorts all in the order the rest is given.
func proportionalSizes(d *appsv1.Deployment, all []*appsv1.ReplicaSet) map[string]int32 {
	allowed := int32(0)
	if *d.Spec.Replicas > 0 {
		allowed = *d.Spec.Replicas + maxSurge(d)
	}
	toAdd := allowed - sumReplicas(all, specReplicas)
	sortBySize(all, toAdd > 0)
	sizes, added := map[string]int32{}, int32(0)
	for _, rs := range all {
		sizes[rs.Name] = *rs.Spec.Replicas
		if toAdd != 0 {
			p := replicaSetProportion(rs, d, toAdd, added)
			sizes[rs.Name] += p
			added += p
		}
	}
	if toAdd != 0 && len(all) > 0 {
		first := all[0].Name
		sizes[first] = max(sizes[first]+toAdd-added, 0)
	}
	return sizes
}

// sortBySize sorts by replicas, largest first; among equals the newer
// first if newer, else the older first.
func sortBySize(rss []*appsv1.ReplicaSet, newer bool) {
	sort.SliceStable(rss, func(i, j int) bool {
		if *rss[i].Spec.Replicas != *rss[j].Spec.Replicas {
			return *rss[i].Spec.Replicas > *rss[j].Spec.Replicas
		}
		a, b := rss[i].CreationTimestamp, rss[j].CreationTimestamp
		if a.Equal(&b) {
			return rss[i].Name > rss[j].Name == newer
		}
		return a.After(b.Time) == newer
	})
}

// replicaSetProportion is rs's share of toAdd, of which added is given
// out already, as upstream's GetReplicaSetProportion.
func replicaSetProportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rs == nil || *rs.Spec.Replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// replicaSetFraction scales rs by the change of the deployment's
// maximum size (max-replicas annotation, else status.replicas).
func replicaSetFraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if *d.Spec.Replicas == 0 {
		return -*rs.Spec.Replicas
	}
	newMax := *d.Spec.Replicas + maxSurge(d)
	oldMax, ok := nonNegativeAnnotation(rs, MaxReplicasAnnotation)
	if !ok || oldMax == 0 {
		if oldMax = d.Status.Replicas; oldMax == 0 {
			return 0
		}
	}
	size := float64(*rs.Spec.Replicas*newMax) / float64(oldMax)
	return int32(math.Round(size)) - *rs.Spec.Replicas
}

// activeOrLatest returns the only active ReplicaSet, or the latest when
// none is active; nil when several are.
func activeOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	byCreation(oldRSs)
	sorted := make([]*appsv1.ReplicaSet, 0, len(oldRSs))
	for i := len(oldRSs) - 1; i >= 0; i-- {
		sorted = append(sorted, oldRSs[i])
	}
	active := activeReplicaSets(append(sorted, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return sorted[0]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated: the new ReplicaSet has all of d's replicas, available.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.Annotations[DesiredReplicasAnnotation])
	return err == nil && *rs.Spec.Replicas == *d.Spec.Replicas && int32(desired) == *d.Spec.Replicas &&
		rs.Status.AvailableReplicas == *d.Spec.Replicas
}

// scaleReplicaSet writes rs's new size and the replicas annotations,
// and says whether the size changed.
func (c *DeploymentController) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, size int32, d *appsv1.Deployment, force bool) (bool, *appsv1.ReplicaSet, error) {
	if !force && *rs.Spec.Replicas == size {
		return false, rs, nil
	}
	resize := *rs.Spec.Replicas != size
	most := *d.Spec.Replicas + maxSurge(d)
	copied := rs.DeepCopy()
	if !setReplicasAnnotations(copied, *d.Spec.Replicas, most) && !resize {
		return false, rs, nil
	}
	*copied.Spec.Replicas = size
	if resize {
		decide(ctx, scaleDecision(rs.Name, *rs.Spec.Replicas, size))
	}
	updated, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, copied, metav1.UpdateOptions{})
	if err != nil {
		return false, rs, fmt.Errorf("controllers: scale replicaset %s to %d: %w", rs.Name, size, err)
	}
	c.recordScaled(d, updated, *rs.Spec.Replicas, size)
	return resize, updated, nil
}

// newRSReplicas is the size the new ReplicaSet may have now: for a
// rolling update as many more as maxSurge leaves room for, up to d's
// replicas; for Recreate all of them.
func newRSReplicas(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		surge, err := intstr.GetScaledValueFromIntOrPercent(d.Spec.Strategy.RollingUpdate.MaxSurge, int(*d.Spec.Replicas), true)
		if err != nil {
			return 0, err
		}
		current, most := sumReplicas(all, specReplicas), *d.Spec.Replicas+int32(surge)
		if current >= most {
			return *newRS.Spec.Replicas, nil
		}
		return *newRS.Spec.Replicas + min(most-current, *d.Spec.Replicas-*newRS.Spec.Replicas), nil
	case appsv1.RecreateDeploymentStrategyType:
		return *d.Spec.Replicas, nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

// cleanup deletes the oldest old ReplicaSets beyond
// revisionHistoryLimit, those scaled to 0 with no pods left.
func (c *DeploymentController) cleanup(ctx context.Context, d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet) error {
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var alive []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	diff := int32(len(alive)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return nil
	}
	byRevision(alive)
	for _, rs := range alive[:diff] {
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		decide(ctx, Decision{Reason: DecisionDeleteOldReplicaSet, Target: rs.Name, Want: *d.Spec.RevisionHistoryLimit})
		err := c.client.AppsV1().ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// byRevision sorts by revision, oldest first (by creation when equal).
func byRevision(rss []*appsv1.ReplicaSet) {
	byCreation(rss)
	sort.SliceStable(rss, func(i, j int) bool {
		a, errA := revision(rss[i])
		b, errB := revision(rss[j])
		if errA != nil || errB != nil || a == b {
			return false
		}
		return a < b
	})
}
