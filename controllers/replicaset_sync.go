package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// sync brings the ReplicaSet of key to its replicas, as upstream's
// syncReplicaSet: claim the pods, create or delete the difference unless
// earlier writes are still to be seen, then write the status.
func (c *ReplicaSetController) sync(ctx context.Context, key string) error {
	ns, name, err := splitKey(key)
	if err != nil {
		return nil
	}
	rs, err := c.rsLister.ReplicaSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.expectations.forget(key)
		return nil
	} else if err != nil {
		return err
	}
	needsSync := c.expectations.satisfied(key)
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil // invalid selector: nothing to do until it changes
	}
	// Its own pods and the orphans of its namespace, not every pod there.
	all := podsOfControllers(c.podIndexer, ns, rs.UID)
	pods, err := c.claimPods(ctx, rs, selector, activePods(all))
	if err != nil {
		return err
	}
	var manageErr error
	if needsSync && rs.DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, pods, rs)
	}
	rs = rs.DeepCopy()
	status := replicaSetStatus(rs, pods, manageErr, time.Now())
	status.TerminatingReplicas = terminatingPods(rs, selector, all)
	updated, err := c.updateStatus(ctx, rs, status)
	if err != nil {
		return err
	}
	if manageErr == nil && updated.Spec.MinReadySeconds > 0 &&
		updated.Status.ReadyReplicas == *updated.Spec.Replicas && updated.Status.AvailableReplicas != *updated.Spec.Replicas {
		c.queue.AddAfter(key, time.Duration(updated.Spec.MinReadySeconds)*time.Second)
	}
	return manageErr
}

// terminatingPods counts rs's pods that are being deleted but not yet
// finished (status.terminatingReplicas, upstream's
// DeploymentReplicaSetTerminatingReplicas, on by default since v1.35).
func terminatingPods(rs *appsv1.ReplicaSet, selector labels.Selector, pods []*corev1.Pod) *int32 {
	var n int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed &&
			metav1.IsControlledBy(p, rs) && selector.Matches(labels.Set(p.Labels)) {
			n++
		}
	}
	return &n
}

// claimPods adopts and releases pods for rs and returns its own.
func (c *ReplicaSetController) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, selector labels.Selector, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	pc := c.client.CoreV1().Pods(rs.Namespace)
	cl := &claimer{
		owner: rs, ref: controllerRef(rs, rsKind.GroupVersion().String(), rsKind.Kind), selector: selector,
		canAdopt: recheckOwner(func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().ReplicaSets(rs.Namespace).Get(ctx, rs.Name, metav1.GetOptions{})
		}, rs.UID),
		patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := pc.Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			return err
		},
	}
	return claimObjects(ctx, cl, pods)
}

// manageReplicas creates or deletes pods so that rs has spec.replicas,
// at most c.burst per sync, recording the expectations first.
func (c *ReplicaSetController) manageReplicas(ctx context.Context, pods []*corev1.Pod, rs *appsv1.ReplicaSet) error {
	key := rs.Namespace + "/" + rs.Name
	diff := len(pods) - int(*rs.Spec.Replicas)
	d := Decision{Want: *rs.Spec.Replicas, Have: int32(len(pods))}
	switch {
	case diff < 0:
		d.Reason, d.Count = DecisionTooFewReplicas, int32(min(-diff, c.burst))
		decide(ctx, d)
		return c.createPods(ctx, rs, key, min(-diff, c.burst))
	case diff > 0:
		d.Reason, d.Count = DecisionTooManyReplicas, int32(min(diff, c.burst))
		decide(ctx, d)
		return c.deletePods(ctx, rs, key, pods, min(diff, c.burst))
	}
	return nil
}

// createPods creates n pods in slow-start batches; the creations that
// were never attempted no longer count as expected.
func (c *ReplicaSetController) createPods(ctx context.Context, rs *appsv1.ReplicaSet, key string, n int) error {
	c.expectations.expectCreations(key, n)
	ref := controllerRef(rs, rsKind.GroupVersion().String(), rsKind.Kind)
	ownedBy(ctx, ref)
	created, err := slowStartBatch(n, SlowStartInitialBatchSize, func() error {
		pod := podFromTemplate(&rs.Spec.Template, rs.Namespace, rs.Name, ref)
		wctx := writeSlot(ctx)
		made, err := c.client.CoreV1().Pods(rs.Namespace).Create(wctx, pod, metav1.CreateOptions{})
		if err == nil {
			noteCreated(wctx, made)
		}
		if err != nil {
			c.expectations.creationObserved(key) // this one will never be seen
		}
		return err
	})
	for range n - created {
		c.expectations.creationObserved(key)
	}
	if err != nil {
		return fmt.Errorf("controllers: replicaset %s: create pods: %w", key, err)
	}
	return nil
}

// slowStartBatch calls fn count times, in batches of initial, then twice
// as many each time, all calls of a batch at once; it stops after the
// first batch with a failure and returns how many calls succeeded.
func slowStartBatch(count, initial int, fn func() error) (int, error) {
	remaining, successes := count, 0
	for batch := min(remaining, initial); batch > 0; batch = min(2*batch, remaining) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := fn(); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		successes += batch - len(errs)
		if err, failed := <-errs; failed {
			return successes, err
		}
		remaining -= batch
	}
	return successes, nil
}

// deletePods deletes the n pods upstream would delete first.
func (c *ReplicaSetController) deletePods(ctx context.Context, rs *appsv1.ReplicaSet, key string, pods []*corev1.Pod, n int) error {
	victims := podsToDelete(pods, c.relatedPods(rs), n, time.Now())
	keys := make([]string, len(victims))
	for i, p := range victims {
		keys[i] = podKey(p)
	}
	c.expectations.expectDeletions(key, keys)
	errs := make(chan error, len(victims))
	var wg sync.WaitGroup
	for _, p := range victims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				c.expectations.deletionObserved(key, podKey(p)) // it will not be seen going
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err, failed := <-errs; failed {
		return fmt.Errorf("controllers: replicaset %s: delete pods: %w", key, err)
	}
	return nil
}

// relatedPods returns the pods of every ReplicaSet with rs's controller
// (the Deployment's other ReplicaSets), or rs's own if it has none.
func (c *ReplicaSetController) relatedPods(rs *appsv1.ReplicaSet) []*corev1.Pod {
	owners := []types.UID{rs.UID}
	if ref := metav1.GetControllerOf(rs); ref != nil {
		if all, err := c.rsLister.ReplicaSets(rs.Namespace).List(labels.Everything()); err == nil {
			for _, other := range all {
				if r := metav1.GetControllerOf(other); r != nil && r.UID == ref.UID && other.UID != rs.UID {
					owners = append(owners, other.UID)
				}
			}
		}
	}
	return podsOfControllers(c.podIndexer, "", owners...)
}
