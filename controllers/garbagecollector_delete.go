package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// client returns the dynamic client of ref's resource and namespace.
func (gc *GarbageCollector) client(ref objectRef) (dynamic.ResourceInterface, error) {
	m, err := gc.mapping(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, err
	}
	if !m.namespaced {
		return gc.dynamic.Resource(m.gvr), nil
	}
	if ref.Namespace == "" {
		return nil, fmt.Errorf("controllers: garbage collector: namespaced %s %s named by a cluster-scoped object", ref.Kind, ref.Name)
	}
	return gc.dynamic.Resource(m.gvr).Namespace(ref.Namespace), nil
}

// get reads ref's object as it is now; NotFound also when the name now
// belongs to another object.
func (gc *GarbageCollector) get(ctx context.Context, ref objectRef) (*unstructured.Unstructured, error) {
	rc, err := gc.client(ref)
	if err != nil {
		return nil, err
	}
	obj, err := rc.Get(ctx, ref.Name, metav1.GetOptions{})
	if err == nil && obj.GetUID() != ref.UID {
		return nil, apierrors.NewNotFound(gc.groupResource(ref), ref.Name)
	}
	return obj, err
}

func (gc *GarbageCollector) groupResource(ref objectRef) schema.GroupResource {
	m, _ := gc.mapping(ref.APIVersion, ref.Kind)
	return m.gvr.GroupResource()
}

// attemptToDeleteItem looks at one object, as upstream's
// attemptToDeleteItem: an owner deleting its dependents in the
// foreground loses its finalizer once none blocks it (or they are asked
// to go); a virtual node that does not exist is dropped (its dependents
// get a look); an object with no owner left that exists is deleted:
// in the foreground if an owner waits for it and it has dependents of
// its own (its references made non-blocking first if one of those waits
// too: a possible cycle), else as its own finalizers ask (orphan, foreground,
// background by default). One owner that exists and is not waiting
// keeps it; the references to the others are removed.
func (gc *GarbageCollector) attemptToDeleteItem(ctx context.Context, uid types.UID) error {
	n, ok := gc.graph.view(uid)
	if !ok || (n.beingDeleted && !n.deletingDependents) {
		return nil
	}
	if n.deletingDependents {
		return gc.processDeletingDependents(ctx, n)
	}
	latest, err := gc.get(ctx, n.ref)
	if apierrors.IsNotFound(err) {
		gc.graph.removeVirtual(uid)
		return nil
	} else if err != nil {
		return err
	}
	if n.virtual {
		return nil // it exists: its informer will show it
	}
	owners := latest.GetOwnerReferences()
	if len(owners) == 0 {
		return nil
	}
	solid, dangling, waiting, err := gc.classifyOwners(ctx, n.ref, owners)
	if err != nil {
		return err
	}
	switch {
	case len(solid) > 0:
		if len(dangling)+len(waiting) == 0 {
			return nil
		}
		return gc.removeOwnerRefs(ctx, n.ref, append(dangling, waiting...))
	case len(waiting) > 0 && len(n.dependents) > 0:
		if slices.ContainsFunc(n.dependents, func(d nodeView) bool { return d.deletingDependents }) {
			// An owner and a dependent both wait for their dependents: a
			// possible cycle, which upstream breaks by making this
			// object's ownerReferences non-blocking first.
			if err := gc.unblockOwnerRefs(ctx, n.ref, latest); err != nil {
				return err
			}
		}
		decide(ctx, Decision{Reason: DecisionOwnerDeletingDependents, Target: ownerNames(owners), Policy: string(metav1.DeletePropagationForeground)})
		return gc.deleteObject(ctx, n.ref, latest, metav1.DeletePropagationForeground)
	}
	decide(ctx, Decision{Reason: DecisionOwnerGone, Target: ownerNames(owners), Policy: string(policyOf(latest))})
	return gc.deleteObject(ctx, n.ref, latest, policyOf(latest))
}

// policyOf is the propagation an object's own finalizers ask for.
func policyOf(obj metav1.Object) metav1.DeletionPropagation {
	switch {
	case slices.Contains(obj.GetFinalizers(), metav1.FinalizerOrphanDependents):
		return metav1.DeletePropagationOrphan
	case slices.Contains(obj.GetFinalizers(), metav1.FinalizerDeleteDependents):
		return metav1.DeletePropagationForeground
	}
	return metav1.DeletePropagationBackground
}

// classifyOwners reads each owner: gone (or another object of the same
// name: dangling), deleting its dependents in the foreground (waiting),
// or there (solid).
func (gc *GarbageCollector) classifyOwners(ctx context.Context, dep objectRef, owners []metav1.OwnerReference) (solid, dangling, waiting []types.UID, err error) {
	for _, o := range owners {
		ref := objectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: dep.Namespace, Name: o.Name, UID: o.UID}
		if m, mErr := gc.mapping(o.APIVersion, o.Kind); mErr == nil && !m.namespaced {
			ref.Namespace = ""
		}
		owner, getErr := gc.get(ctx, ref)
		switch {
		case apierrors.IsNotFound(getErr):
			dangling = append(dangling, o.UID)
		case getErr != nil:
			return nil, nil, nil, getErr
		case owner.GetDeletionTimestamp() != nil && slices.Contains(owner.GetFinalizers(), metav1.FinalizerDeleteDependents):
			waiting = append(waiting, o.UID)
		default:
			solid = append(solid, o.UID)
		}
	}
	return solid, dangling, waiting, nil
}

// processDeletingDependents: with no dependent left that blocks it, the
// owner loses its foregroundDeletion finalizer (and the API server
// removes it); else the blocking dependents are looked at.
func (gc *GarbageCollector) processDeletingDependents(ctx context.Context, n nodeView) error {
	if len(n.blocking) == 0 {
		decide(ctx, Decision{Reason: DecisionDependentsGone, Target: metav1.FinalizerDeleteDependents})
		return gc.removeFinalizer(ctx, n.ref, metav1.FinalizerDeleteDependents)
	}
	for _, d := range n.blocking {
		if !d.deletingDependents {
			gc.attemptToDelete.Add(d.ref.UID)
		}
	}
	return nil
}

// deleteObject deletes ref's object with policy, on the precondition
// that it is still the object read as latest; if it changed but its
// ownerReferences did not, again without the resourceVersion.
func (gc *GarbageCollector) deleteObject(ctx context.Context, ref objectRef, latest *unstructured.Unstructured, policy metav1.DeletionPropagation) error {
	rc, err := gc.client(ref)
	if err != nil {
		return err
	}
	uid, rv := ref.UID, latest.GetResourceVersion()
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}, PropagationPolicy: &policy}
	err = rc.Delete(ctx, ref.Name, opts)
	if apierrors.IsConflict(err) {
		live, liveErr := gc.get(ctx, ref)
		if liveErr != nil {
			return liveErr
		}
		if slices.EqualFunc(live.GetOwnerReferences(), latest.GetOwnerReferences(), ownerRefEqual) {
			opts.Preconditions.ResourceVersion = nil
			err = rc.Delete(ctx, ref.Name, opts)
		}
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func ownerRefEqual(a, b metav1.OwnerReference) bool {
	return a.UID == b.UID && a.Name == b.Name && a.Kind == b.Kind && blocks(a) == blocks(b)
}

// attemptToOrphanItem removes the owner's ownerReference from every
// dependent, then the owner's orphan finalizer.
func (gc *GarbageCollector) attemptToOrphanItem(ctx context.Context, uid types.UID) error {
	n, ok := gc.graph.view(uid)
	if !ok {
		return nil
	}
	decide(ctx, Decision{Reason: DecisionOrphan, Count: int32(len(n.dependents)), Target: metav1.FinalizerOrphanDependents})
	for _, d := range n.dependents {
		if err := gc.removeOwnerRefs(ctx, d.ref, []types.UID{uid}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return gc.removeFinalizer(ctx, n.ref, metav1.FinalizerOrphanDependents)
}

// removeOwnerRefs removes the ownerReferences to owners from ref's
// object: the references left are written (patchOwnerRefs).
func (gc *GarbageCollector) removeOwnerRefs(ctx context.Context, ref objectRef, owners []types.UID) error {
	obj, err := gc.get(ctx, ref)
	if err != nil {
		return err
	}
	left := []metav1.OwnerReference{}
	for _, o := range obj.GetOwnerReferences() {
		if !slices.Contains(owners, o.UID) {
			left = append(left, o)
		}
	}
	if len(left) == len(obj.GetOwnerReferences()) {
		return nil
	}
	return gc.patchOwnerRefs(ctx, ref, left, obj.GetResourceVersion())
}

// patchOwnerRefs writes refs as ref's ownerReferences with a JSON merge
// patch that holds its uid and resourceVersion too, so that it fails on
// another object of the same name or on a change since rv was read.
func (gc *GarbageCollector) patchOwnerRefs(ctx context.Context, ref objectRef, refs []metav1.OwnerReference, rv string) error {
	rc, err := gc.client(ref)
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": refs, "uid": ref.UID, "resourceVersion": rv}})
	if err != nil {
		return err
	}
	_, err = rc.Patch(ctx, ref.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// unblockOwnerRefs sets blockOwnerDeletion to false in every
// ownerReference of ref's object (latest) that has it true, on latest's
// uid and resourceVersion (patchOwnerRefs), as upstream's
// unblockOwnerReferences: the owners waiting for it are then no longer
// held by it. Nothing is written if none blocks.
func (gc *GarbageCollector) unblockOwnerRefs(ctx context.Context, ref objectRef, latest *unstructured.Unstructured) error {
	refs := latest.GetOwnerReferences()
	if !slices.ContainsFunc(refs, blocks) {
		return nil
	}
	for i := range refs {
		if blocks(refs[i]) {
			refs[i].BlockOwnerDeletion = new(bool)
		}
	}
	return gc.patchOwnerRefs(ctx, ref, refs, latest.GetResourceVersion())
}

// removeFinalizer removes finalizer from ref's object, retrying on
// conflicts; an object gone is no error.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, ref objectRef, finalizer string) error {
	rc, err := gc.client(ref)
	if err != nil {
		return err
	}
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		obj, err := gc.get(ctx, ref)
		if err != nil {
			return err
		}
		fs := obj.GetFinalizers()
		if !slices.Contains(fs, finalizer) {
			return nil
		}
		obj.SetFinalizers(slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == finalizer }))
		_, err = rc.Update(ctx, obj, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
