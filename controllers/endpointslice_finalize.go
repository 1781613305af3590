package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// finalize makes the writes of ch, as upstream's Reconciler.finalize: a
// slice to create takes the name of one to delete where it can (one
// update instead of a delete and a create); no slice is created for a
// Service being deleted. Each written slice carries the trigger time
// annotation. The writes are recorded by the client's transport in the
// sync's record, when it has one (observe.go).
func (c *EndpointSliceController) finalize(ctx context.Context, svc *corev1.Service, ch sliceChanges, trigger time.Time) error {
	for i := 0; i < len(ch.remove) && len(ch.create) > 0; {
		old, s := ch.remove[i], ch.create[len(ch.create)-1]
		if old.AddressType != s.AddressType || !sliceOwnedBy(old, svc) {
			i++
			continue
		}
		s.Name = old.Name
		ch.create = ch.create[:len(ch.create)-1]
		ch.update = append(ch.update, s)
		ch.remove = append(ch.remove[:i], ch.remove[i+1:]...)
	}
	slices := c.client.DiscoveryV1().EndpointSlices(svc.Namespace)
	if svc.DeletionTimestamp == nil {
		for _, s := range ch.create {
			annotateTrigger(s, trigger)
			wctx := writeSlot(ctx)
			made, err := slices.Create(wctx, s, metav1.CreateOptions{})
			if err != nil {
				if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
					return nil
				}
				return fmt.Errorf("create an EndpointSlice for service %s/%s: %w", svc.Namespace, svc.Name, err)
			}
			noteCreated(wctx, made)
			c.tracker.update(made)
		}
	}
	for _, s := range ch.update {
		annotateTrigger(s, trigger)
		updated, err := slices.Update(ctx, s, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("update EndpointSlice %s for service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
		c.tracker.update(updated)
	}
	for _, s := range ch.remove {
		if err := slices.Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete EndpointSlice %s for service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
		c.tracker.expectDeletion(s)
	}
	return nil
}

// annotateTrigger sets the slice's last-change-trigger-time annotation
// (or removes it for a zero time).
func annotateTrigger(s *discoveryv1.EndpointSlice, at time.Time) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	setTriggerTime(s.Annotations, at)
}
