package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// Signals from inside the delete's update loop.
var (
	errDeleteNow        = errors.New("delete now")
	errAlreadyDeleting  = errors.New("already being deleted")
	errNoGracePeriodSet = errors.New("graceful delete without a grace period")
)

// deletePlan is what a delete request means for the current object.
type deletePlan int

const (
	deleteImmediately deletePlan = iota // remove the key now
	deleteGracefully                    // (re)write deletionTimestamp and grace period
	deletePending                       // already being deleted; nothing changes
)

// planDelete decides, like kube-apiserver's BeforeDelete, whether deleting
// obj is immediate, graceful (and then stamps obj), or already under way.
// It may set opts.GracePeriodSeconds.
func (s *Store) planDelete(obj runtime.Object, opts *metav1.DeleteOptions) (deletePlan, error) {
	m, err := metaOf(obj)
	if err != nil {
		return 0, err
	}
	// Negative grace periods count as one second.
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		opts.GracePeriodSeconds = &one
	}
	if g := m.GetDeletionGracePeriodSeconds(); g != nil && *g < 0 {
		one := int64(1)
		m.SetDeletionGracePeriodSeconds(&one)
	}
	if s.Resource.CheckGracefulDelete == nil {
		return deleteImmediately, nil
	}
	if ts := m.GetDeletionTimestamp(); ts != nil {
		cur := m.GetDeletionGracePeriodSeconds()
		if cur == nil || *cur == 0 {
			return deleteImmediately, nil
		}
		// A second delete may only shorten the grace period.
		if g := opts.GracePeriodSeconds; g != nil {
			if *g >= *cur {
				return deletePending, nil
			}
			start := ts.Add(-time.Duration(*cur) * time.Second)
			newTS := metav1.NewTime(start.Add(time.Duration(*g) * time.Second))
			period := *g
			m.SetDeletionTimestamp(&newTS)
			m.SetDeletionGracePeriodSeconds(&period)
			return deleteGracefully, nil
		}
		opts.GracePeriodSeconds = cur
		return deletePending, nil
	}
	if !s.Resource.CheckGracefulDelete(obj, opts) {
		return deleteImmediately, nil
	}
	if opts.GracePeriodSeconds == nil {
		return 0, apierrors.NewInternalError(errNoGracePeriodSet)
	}
	period := *opts.GracePeriodSeconds
	ts := metav1.NewTime(metav1.Now().Add(time.Duration(period) * time.Second))
	m.SetDeletionTimestamp(&ts)
	m.SetDeletionGracePeriodSeconds(&period)
	if g := m.GetGeneration(); g > 0 {
		m.SetGeneration(g + 1)
	}
	return deleteGracefully, nil
}

// deletedStatus is what a delete that removed the object answers: the
// object for a resource that returns it (ReturnDeletedObject), otherwise
// a Success Status naming it (Kind holds the resource), as upstream's
// finalizeDelete.
func (s *Store) deletedStatus(obj runtime.Object) (runtime.Object, error) {
	if s.Resource.ReturnDeletedObject {
		return obj, nil
	}
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	gr := s.Resource.GroupResource()
	return &metav1.Status{
		Status:  metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: m.GetName(), Group: gr.Group, Kind: gr.Resource, UID: m.GetUID()},
	}, nil
}

// Delete deletes an object the way kube-apiserver does:
//
//   - preconditions (uid, resourceVersion) that do not hold give 409;
//   - a graceful resource (a pod bound to a node) gets deletionTimestamp
//     (now + grace period) and deletionGracePeriodSeconds and stays, a
//     MODIFIED event for watchers; deleting it again may only shorten the
//     period, and a period of 0 removes it (two writes: a resourceVersion
//     precondition the client gave must hold for both, moving on to the
//     version the first one wrote; without one, a write in between by
//     someone else does not fail the delete);
//   - an object with finalizers gets a deletionTimestamp and stays until
//     its finalizers are removed;
//   - anything else is removed at once.
//
// It returns the object when it stays (deleted=false) and, when it is
// gone (deleted=true), a Success Status or the object (deletedStatus).
func (s *Store) Delete(ctx context.Context, namespace, name string, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions) (out runtime.Object, deleted bool, err error) {
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	req := &deleteRequest{name: name, opts: opts, validate: deleteValidation, wo: s.writeOptions(Options{DryRun: isDryRun(opts.DryRun)})}
	if req.key, err = s.checkedKey(namespace, name); err != nil {
		return nil, false, err
	}
	current, err := s.storage.Get(ctx, req.key, storage.GetOptions{})
	if err != nil {
		return nil, false, s.interpret(err, name)
	}
	if p := opts.Preconditions; p != nil {
		req.precond = &storage.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}
		if err := s.checkDeletePreconditions(current, p); err != nil {
			return nil, false, err
		}
	}
	plan, err := s.planDelete(current.DeepCopyObject(), opts.DeepCopy())
	if err != nil {
		return nil, false, err
	}
	if plan == deletePending {
		out, err := s.deletedStatus(current)
		return out, false, err
	}
	cm, err := metaOf(current)
	if err != nil {
		return nil, false, err
	}
	if gcChange, _ := gcFinalizers(cm.GetFinalizers(), opts, s.Resource.OrphanByDefault); plan == deleteGracefully || len(cm.GetFinalizers()) > 0 || gcChange {
		out, deleted, err := s.markDeleting(ctx, req, current)
		if !errors.Is(err, errDeleteNow) {
			return out, deleted, err
		}
		req.marked = out
	}
	return s.remove(ctx, req)
}

// checkDeletePreconditions fails a delete early, as upstream's
// rest.BeforeDelete does, when the client's preconditions do not hold for
// current. Upstream names the Kind where a Conflict names the resource
// ("on ConfigMap "x""). Should the object change after this check, the
// storage's check fails the write instead, with its StorageError text.
func (s *Store) checkDeletePreconditions(current runtime.Object, p *metav1.Preconditions) error {
	m, err := metaOf(current)
	if err != nil {
		return err
	}
	gk := schema.GroupResource{Group: s.Resource.Kind.Group, Resource: s.Resource.Kind.Kind}
	if p.UID != nil && *p.UID != m.GetUID() {
		return apierrors.NewConflict(gk, m.GetName(), fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, m.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
		return apierrors.NewConflict(gk, m.GetName(), fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

// precondConflict is how upstream's namespace and CRD storages, which
// check a delete's preconditions themselves, refuse one that fails:
// a Conflict on the resource with the storage's own wording, whose first
// word (prefix) is "Precondition" for namespaces and "precondition" for
// CRDs. It returns nil if p holds for m.
func (s *Store) precondConflict(p *storage.Preconditions, m metav1.Object, prefix string) error {
	gr := s.Resource.GroupResource()
	if p.UID != nil && *p.UID != m.GetUID() {
		return apierrors.NewConflict(gr, m.GetName(), fmt.Errorf("%s failed: UID in precondition: %v, UID in object meta: %v", prefix, *p.UID, m.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
		return apierrors.NewConflict(gr, m.GetName(), fmt.Errorf("%s failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", prefix, *p.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

// deleteRequest is one Delete under way.
type deleteRequest struct {
	key, name string
	// precond holds the client's preconditions; nil if it gave none.
	precond  *storage.Preconditions
	wo       storage.WriteOptions
	opts     *metav1.DeleteOptions
	validate ValidateObjectFunc // may be nil
	// marked is what this request wrote before the removal (a grace
	// period of 0), nil if it wrote nothing.
	marked runtime.Object
}

// markDeleting writes the deletion of an object that stays for now: a
// graceful delete's deletionTimestamp and grace period, or the mark of an
// object held by finalizers (markForDeletion), found as current when the
// delete began. It returns the object written (deleted=false) or, for a
// dry run whose grace period is 0, the Success Status (deleted=true).
// errDeleteNow says the object is to be removed now instead: not (or no
// longer) graceful (nothing written, nil returned), or written with a
// grace period of 0 (the object written is returned); req.precond's
// resourceVersion, if the client named one, then moves on to the version
// just written, as upstream (without one the removal is unconditional, so
// a status write in between does not fail it).
func (s *Store) markDeleting(ctx context.Context, req *deleteRequest, current runtime.Object) (runtime.Object, bool, error) {
	var mark deleteMark
	updated, err := s.storage.GuaranteedUpdate(ctx, req.key, req.precond, false, req.wo, s.markForDeletion(ctx, req, &mark))
	switch {
	case errors.Is(err, errAlreadyDeleting):
		out, err := s.deletedStatus(current)
		return out, false, err
	case errors.Is(err, errDeleteNow):
		return nil, false, errDeleteNow // nothing written
	case err != nil:
		return nil, false, s.interpret(err, req.name)
	case mark.finalizers || mark.graceLeft > 0:
		return updated, false, nil
	case req.wo.DryRun:
		out, err := s.deletedStatus(updated)
		return out, true, err
	case req.precond != nil && req.precond.ResourceVersion != nil:
		rv := mustRV(updated)
		req.precond.ResourceVersion = &rv
	}
	return updated, false, errDeleteNow
}

// deleteMark is what markForDeletion's last run found.
type deleteMark struct {
	graceLeft  int64 // the grace period written, for a graceful delete
	finalizers bool  // the object has finalizers
}

// markForDeletion is the update of markDeleting, run on the object as it
// is stored (again, if it changes meanwhile): after req.validate, a
// graceful delete stamps it (planDelete), one held by finalizers gets a
// deletionTimestamp (if it has none) and a grace period of 0. It fails
// with errAlreadyDeleting if the delete is already under way, and with
// errDeleteNow if the object is to be removed at once. It records in mark
// what it found.
func (s *Store) markForDeletion(ctx context.Context, req *deleteRequest, mark *deleteMark) storage.UpdateFunc {
	return func(existing runtime.Object) (runtime.Object, error) {
		if req.validate != nil {
			if err := req.validate(ctx, existing); err != nil {
				return nil, err
			}
		}
		o := req.opts.DeepCopy()
		plan, err := s.planDelete(existing, o)
		if err != nil {
			return nil, err
		}
		m, err := metaOf(existing)
		if err != nil {
			return nil, err
		}
		if plan == deletePending {
			return nil, errAlreadyDeleting
		}
		// The garbage collector's finalizers, as the options ask.
		if changed, f := gcFinalizers(m.GetFinalizers(), o, s.Resource.OrphanByDefault); changed {
			m.SetFinalizers(f)
		}
		mark.finalizers = len(m.GetFinalizers()) > 0
		switch {
		case plan == deleteGracefully:
			mark.graceLeft = *o.GracePeriodSeconds
			return existing, nil
		case mark.finalizers:
			// Not graceful, but held by finalizers: mark it (a first
			// mark bumps the generation, as upstream's markAsDeleting).
			if m.GetDeletionTimestamp() == nil {
				if g := m.GetGeneration(); g > 0 {
					m.SetGeneration(g + 1)
				}
				now := metav1.Now()
				m.SetDeletionTimestamp(&now)
			}
			zero := int64(0)
			m.SetDeletionGracePeriodSeconds(&zero)
			return existing, nil
		}
		return nil, errDeleteNow
	}
}

// remove removes the object from etcd, if req.precond and req.validate
// accept it as it is then stored, and returns what deletedStatus makes
// of it (deleted=true). A dry run removes nothing.
func (s *Store) remove(ctx context.Context, req *deleteRequest) (runtime.Object, bool, error) {
	old, err := s.storage.Delete(ctx, req.key, req.precond, func(obj runtime.Object) error {
		if req.validate != nil {
			return req.validate(ctx, obj)
		}
		return nil
	}, req.wo)
	if storage.IsNotFound(err) && req.marked != nil {
		// Someone removed it after this request marked it (the kubelet
		// deletes a pod whose deletionTimestamp it sees): the delete has
		// happened, as upstream's store answers (ignoreNotFound).
		old, err = req.marked, nil
	}
	if err != nil {
		return nil, false, s.interpret(err, req.name)
	}
	out, err := s.deletedStatus(old)
	return out, true, err
}

// DeleteCollection deletes every object in namespace that matches
// listOpts, each as Delete would, and returns the list of what matched.
func (s *Store) DeleteCollection(ctx context.Context, namespace string, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *metainternalversion.ListOptions) (runtime.Object, error) {
	list, err := s.List(ctx, namespace, listOpts)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	for _, item := range items {
		m, err := metaOf(item)
		if err != nil {
			return nil, err
		}
		o := opts.DeepCopy()
		if _, _, err := s.Delete(ctx, m.GetNamespace(), m.GetName(), deleteValidation, o); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("delete %s: %w", m.GetName(), err)
		}
	}
	return list, nil
}

// isDryRun reports whether a request's dryRun list asks for a dry run
// ("All" is the only value the API accepts).
func isDryRun(dryRun []string) bool { return len(dryRun) > 0 }
