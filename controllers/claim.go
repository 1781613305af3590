package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// claimer decides, as upstream's ControllerRefManager, which of the
// objects in a controller's namespace are the controller's: those it
// controls whose labels still match (the others it releases: its
// ownerReference is removed), and the orphans whose labels match, which
// it adopts (its ownerReference is added), unless it is being deleted.
// Before the first adoption it checks the controller afresh from the API
// (canAdopt), so that a controller deleted and re-created with the same
// name does not adopt what the old one released.
type claimer struct {
	owner    metav1.Object
	ref      *metav1.OwnerReference
	selector labels.Selector
	canAdopt func(ctx context.Context) error
	// patch applies a strategic merge patch to the named object.
	patch func(ctx context.Context, name string, patch []byte) error

	once     sync.Once
	adoptErr error
}

// claim returns the objects of objs the controller keeps.
func claimObjects[T metav1.Object](ctx context.Context, c *claimer, objs []T) ([]T, error) {
	var claimed []T
	var errs []error
	for _, o := range objs {
		ok, err := c.claimOne(ctx, o)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			claimed = append(claimed, o)
		}
	}
	if len(errs) > 0 {
		return claimed, fmt.Errorf("controllers: claim: %v", errs)
	}
	return claimed, nil
}

// claimOne reports whether the controller keeps o, adopting or releasing
// it as needed.
func (c *claimer) claimOne(ctx context.Context, o metav1.Object) (bool, error) {
	matches := c.selector.Matches(labels.Set(o.GetLabels()))
	if ref := metav1.GetControllerOfNoCopy(o); ref != nil {
		if ref.UID != c.owner.GetUID() {
			return false, nil // someone else's
		}
		if matches {
			return true, nil
		}
		if c.owner.GetDeletionTimestamp() != nil {
			return false, nil // the garbage collector takes it from here
		}
		return false, c.release(ctx, o)
	}
	if !matches || c.owner.GetDeletionTimestamp() != nil || o.GetDeletionTimestamp() != nil {
		return false, nil
	}
	if err := c.adopt(ctx, o); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// adopt adds the controller's ownerReference to the orphan o.
func (c *claimer) adopt(ctx context.Context, o metav1.Object) error {
	c.once.Do(func() { c.adoptErr = c.canAdopt(ctx) })
	if c.adoptErr != nil {
		return fmt.Errorf("controllers: cannot adopt %s: %w", o.GetName(), c.adoptErr)
	}
	patch, err := ownerRefPatch(o.GetUID(), map[string]any{
		"apiVersion": c.ref.APIVersion, "kind": c.ref.Kind, "name": c.ref.Name, "uid": c.ref.UID,
		"controller": true, "blockOwnerDeletion": true,
	})
	if err != nil {
		return err
	}
	return c.patch(ctx, o.GetName(), patch)
}

// release removes the controller's ownerReference from o; an object
// gone or changed meanwhile is no error.
func (c *claimer) release(ctx context.Context, o metav1.Object) error {
	patch, err := ownerRefPatch(o.GetUID(), map[string]any{"$patch": "delete", "uid": c.owner.GetUID()})
	if err != nil {
		return err
	}
	err = c.patch(ctx, o.GetName(), patch)
	if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		return nil
	}
	return err
}

// ownerRefPatch is a strategic merge patch of one ownerReference of the
// object with uid (the uid in the patch makes it fail on another object
// of the same name).
func ownerRefPatch(uid types.UID, ref map[string]any) ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{ref}, "uid": uid,
	}})
}

// recheckOwner returns canAdopt for a claimer: fresh, the owner must
// still be the one with uid and not being deleted.
func recheckOwner(get func(ctx context.Context) (metav1.Object, error), uid types.UID) func(context.Context) error {
	return func(ctx context.Context) error {
		fresh, err := get(ctx)
		if err != nil {
			return err
		}
		if fresh.GetUID() != uid {
			return fmt.Errorf("original %s is gone: got uid %s, wanted %s", fresh.GetName(), fresh.GetUID(), uid)
		}
		if fresh.GetDeletionTimestamp() != nil {
			return fmt.Errorf("%s has just been deleted at %v", fresh.GetName(), fresh.GetDeletionTimestamp())
		}
		return nil
	}
}
