package controllers

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newReplicaSet returns the ReplicaSet of d's current template, as
// upstream's getNewReplicaSet: an existing one gets the next revision and
// d's annotations; else, if create, one is created, named
// "<deployment>-<pod-template-hash>", with the hash as label and in its
// selector, and as many replicas as the strategy allows now.
func (c *DeploymentController) newReplicaSet(ctx context.Context, d *appsv1.Deployment, rss, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)
	if existing := findNewReplicaSet(d, rss); existing != nil {
		return c.refreshNewReplicaSet(ctx, d, existing, newRevision)
	}
	if !create {
		return nil, nil
	}
	rs := newReplicaSetFor(d)
	count, err := newRSReplicas(d, append(oldRSs, rs), rs)
	if err != nil {
		return nil, err
	}
	*rs.Spec.Replicas = count
	setNewReplicaSetAnnotations(d, rs, newRevision, false)
	ownedBy(ctx, &rs.OwnerReferences[0])
	wctx := writeSlot(ctx)
	created, err := c.client.AppsV1().ReplicaSets(d.Namespace).Create(wctx, rs, metav1.CreateOptions{})
	if err == nil {
		// Decided before noteCreated, so that the action reported as the
		// POST returns has it (before the ReplicaSet's pods come).
		decide(ctx, Decision{Reason: DecisionNewReplicaSet, Target: created.Name, From: 0, To: count})
		noteCreated(wctx, created)
	}
	switch {
	case apierrors.IsAlreadyExists(err):
		return c.replicaSetNameTaken(ctx, d, rs, err)
	case err != nil:
		c.failedCreate(ctx, d, rs, err)
		return nil, err
	}
	c.recordScaled(d, created, 0, count)
	changed := setDeploymentRevision(d, newRevision)
	if hasProgressDeadline(d) {
		msg := fmt.Sprintf("Created new replica set %q", created.Name)
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewReplicaSet, msg))
		changed = true
	}
	if changed {
		_, err = c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	}
	return created, err
}

// newReplicaSetFor builds (does not create) the ReplicaSet of d's
// template, with 0 replicas.
func newReplicaSetFor(d *appsv1.Deployment) *appsv1.ReplicaSet {
	template := *d.Spec.Template.DeepCopy()
	hash := podTemplateHash(&template, d.Status.CollisionCount)
	template.Labels = copyMap(d.Spec.Template.Labels)
	template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	zero := int32(0)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: replicaSetName(d.Name, hash), Namespace: d.Namespace, Labels: template.Labels,
			OwnerReferences: []metav1.OwnerReference{*controllerRef(d, deploymentKind.GroupVersion().String(), deploymentKind.Kind)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: template},
	}
}

// refreshNewReplicaSet brings the existing new ReplicaSet's annotations
// and minReadySeconds up to date, then d's revision and, the first time,
// its Progressing condition FoundNewReplicaSet.
func (c *DeploymentController) refreshNewReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, newRevision string) (*appsv1.ReplicaSet, error) {
	rs := existing.DeepCopy()
	if setNewReplicaSetAnnotations(d, rs, newRevision, true) || rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		return c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
	}
	changed := setDeploymentRevision(d, rs.Annotations[RevisionAnnotation])
	if hasProgressDeadline(d) && deploymentCondition(d.Status, appsv1.DeploymentProgressing) == nil {
		msg := fmt.Sprintf("Found new replica set %q", rs.Name)
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonFoundNewRS, msg))
		changed = true
	}
	if changed {
		if _, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// replicaSetNameTaken handles a create that found the name taken: ours
// with the same template (an informer behind) is the new ReplicaSet;
// anything else is a hash collision, and status.collisionCount goes up
// so that the next try hashes to another name.
func (c *DeploymentController) replicaSetNameTaken(ctx context.Context, d *appsv1.Deployment, want *appsv1.ReplicaSet, createErr error) (*appsv1.ReplicaSet, error) {
	rs, err := c.rsLister.ReplicaSets(want.Namespace).Get(want.Name)
	if err != nil {
		return nil, err
	}
	if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID && equalIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
		return rs, nil
	}
	if d.Status.CollisionCount == nil {
		d.Status.CollisionCount = new(int32)
	}
	*d.Status.CollisionCount++
	_, _ = c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return nil, createErr
}

// failedCreate records a failed create in the Progressing condition.
func (c *DeploymentController) failedCreate(ctx context.Context, d *appsv1.Deployment, rs *appsv1.ReplicaSet, err error) {
	if !hasProgressDeadline(d) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return
	}
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
	setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonFailedRSCreate, msg))
	_, _ = c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
}

// setDeploymentRevision sets d's revision annotation.
func setDeploymentRevision(d *appsv1.Deployment, rev string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[RevisionAnnotation] == rev {
		return false
	}
	d.Annotations[RevisionAnnotation] = rev
	return true
}

// setNewReplicaSetAnnotations copies d's annotations to rs, raises its
// revision to newRevision (keeping the old one in revision-history) and,
// for a ReplicaSet not yet created, writes the replicas annotations.
func setNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool) bool {
	changed := copyDeploymentAnnotations(d, rs)
	old, had := rs.Annotations[RevisionAnnotation]
	oldRev, err := strconv.ParseInt(old, 10, 64)
	if err != nil {
		if old != "" {
			return false
		}
		oldRev = 0
	}
	newRev, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldRev < newRev {
		rs.Annotations[RevisionAnnotation] = newRevision
		changed = true
		if had {
			appendRevisionHistory(rs, old)
		}
	}
	if !exists && setReplicasAnnotations(rs, *d.Spec.Replicas, *d.Spec.Replicas+maxSurge(d)) {
		changed = true
	}
	return changed
}

// appendRevisionHistory adds old to the revision-history annotation,
// dropping the oldest entries beyond maxRevHistoryLengthInChars.
func appendRevisionHistory(rs *appsv1.ReplicaSet, old string) {
	history := rs.Annotations[RevisionHistoryAnnotation]
	if history == "" {
		rs.Annotations[RevisionHistoryAnnotation] = old
		return
	}
	revs := strings.Split(history, ",")
	total, start := len(history)+len(old)+1, 0
	for total > maxRevHistoryLengthInChars && start < len(revs) {
		total -= len(revs[start]) + 1
		start++
	}
	if total <= maxRevHistoryLengthInChars {
		rs.Annotations[RevisionHistoryAnnotation] = strings.Join(append(revs[start:], old), ",")
	}
}

// copyDeploymentAnnotations copies d's annotations (but the controller's
// own and kubectl's last-applied) to rs.
func copyDeploymentAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range d.Annotations {
		if cur, ok := rs.Annotations[k]; annotationsNotCopied[k] || (ok && cur == v) {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}
