package controllers

import (
	"context"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// sync rolls out the Deployment of key, as upstream's syncDeployment:
// claim its ReplicaSets; while it is being deleted only the status; a
// paused one or a change of replicas is scaled (proportionally); else
// the strategy's rollout.
func (c *DeploymentController) sync(ctx context.Context, key string) error {
	ns, name, err := splitKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.dLister.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	d := cached.DeepCopy()
	if reflect.DeepEqual(d.Spec.Selector, &metav1.LabelSelector{}) {
		return c.selectingAll(ctx, d)
	}
	rss, err := c.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return c.syncStatusOnly(ctx, d, rss)
	}
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused || c.isScalingEvent(d, rss) {
		return c.syncScale(ctx, d, rss)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return c.rolloutRecreate(ctx, d, rss)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return c.rolloutRolling(ctx, d, rss)
	}
	return fmt.Errorf("controllers: deployment %s: unexpected strategy type %q", key, d.Spec.Strategy.Type)
}

// selectingAll: a Deployment with an empty selector does nothing but
// say it saw its generation.
func (c *DeploymentController) selectingAll(ctx context.Context, d *appsv1.Deployment) error {
	if d.Status.ObservedGeneration >= d.Generation {
		return nil
	}
	d.Status.ObservedGeneration = d.Generation
	_, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// claimReplicaSets adopts and releases ReplicaSets for d and returns its
// own.
func (c *DeploymentController) claimReplicaSets(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	all, err := c.rsLister.ReplicaSets(d.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	rsc := c.client.AppsV1().ReplicaSets(d.Namespace)
	cl := &claimer{
		owner: d, ref: controllerRef(d, deploymentKind.GroupVersion().String(), deploymentKind.Kind), selector: sel,
		canAdopt: recheckOwner(func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
		}, d.UID),
		patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := rsc.Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			return err
		},
	}
	return claimObjects(ctx, cl, all)
}

// syncStatusOnly writes the status of a Deployment being deleted.
func (c *DeploymentController) syncStatusOnly(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndRevision(ctx, d, rss, false)
	if err != nil {
		return err
	}
	return c.syncStatus(ctx, d, append(oldRSs, newRS), newRS)
}

// syncScale scales a paused Deployment, or one whose replicas changed,
// without rolling it out.
func (c *DeploymentController) syncScale(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.replicaSetsAndRevision(ctx, d, rss, false)
	if err != nil {
		return err
	}
	if err := c.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanup(ctx, d, oldRSs); err != nil {
			return err
		}
	}
	return c.syncStatus(ctx, d, append(oldRSs, newRS), newRS)
}

// checkPausedConditions sets Progressing to DeploymentPaused or
// DeploymentResumed when spec.paused changes.
func (c *DeploymentController) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == ReasonTimedOut {
		return nil
	}
	paused := cond != nil && cond.Reason == ReasonPaused
	switch {
	case d.Spec.Paused && !paused:
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonPaused, "Deployment is paused"))
	case !d.Spec.Paused && paused:
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonResumed, "Deployment is resumed"))
	default:
		return nil
	}
	_, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// isScalingEvent reports whether spec.replicas differs from what an
// active ReplicaSet's desired-replicas annotation says it was.
func (c *DeploymentController) isScalingEvent(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool {
	newRS := findNewReplicaSet(d, rss)
	for _, rs := range activeReplicaSets(append(findOldReplicaSets(d, rss), newRS)) {
		if desired, ok := nonNegativeAnnotation(rs, DesiredReplicasAnnotation); ok && desired != *d.Spec.Replicas {
			return true
		}
	}
	return false
}

// replicaSetsAndRevision returns d's new ReplicaSet (created if create
// and there is none) and the old ones, and brings the revision
// annotations up to date.
func (c *DeploymentController) replicaSetsAndRevision(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	oldRSs := findOldReplicaSets(d, rss)
	newRS, err := c.newReplicaSet(ctx, d, rss, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}
