package registry

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/storage"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Strategy says what the server does on writes to a resource or one of its
// subresources. A nil func does nothing.
type Strategy struct {
	// PrepareForCreate resets what a client may not set and fills in what
	// the server owns (for pods: status Pending, qosClass, generation 1).
	PrepareForCreate func(obj runtime.Object)
	// PrepareForUpdate copies from old what this endpoint may not change
	// (the main resource keeps the old status; status keeps the old spec).
	PrepareForUpdate func(obj, old runtime.Object)
	// Validate and ValidateUpdate check the resource-specific rules.
	// Store adds the generic object metadata checks as kube-apiserver's
	// rest.BeforeCreate and BeforeUpdate do (see Store.validateCreate).
	Validate       func(obj runtime.Object) field.ErrorList
	ValidateUpdate func(obj, old runtime.Object) field.ErrorList
	// WarningsOnCreate and WarningsOnUpdate return the warnings of a
	// write that passed validation (upstream's strategies' methods of
	// the same names); Store adds them to the request's warning recorder
	// as rest.BeforeCreate and BeforeUpdate do.
	WarningsOnCreate func(ctx context.Context, obj runtime.Object) []string
	WarningsOnUpdate func(ctx context.Context, obj, old runtime.Object) []string
	// AllowCreateOnUpdate lets PUT create a missing object.
	AllowCreateOnUpdate bool
	// AllowUnconditionalUpdate lets PUT without a resourceVersion overwrite.
	AllowUnconditionalUpdate bool
	// BeginCreate and BeginUpdate, if set, run before the rest of the
	// strategy (upstream's BeginCreate/BeginUpdate hooks: services
	// allocate their cluster IP and node ports there). The finish func
	// they return is called once with the stored object, or nil if the
	// write failed.
	BeginCreate func(ctx context.Context, obj runtime.Object, opts Options) (finish func(out runtime.Object), err error)
	BeginUpdate func(ctx context.Context, obj, old runtime.Object, opts Options) (finish func(out runtime.Object), err error)
}

// Resource describes one resource the server serves.
type Resource struct {
	Kind       schema.GroupVersionKind
	Plural     string
	Singular   string
	ShortNames []string
	Categories []string
	Namespaced bool
	// KeyPrefix, if set, is where the objects live under KeyRoot
	// ("apiextensions.k8s.io/customresourcedefinitions"); empty means
	// Plural, as for the core and most built-in resources.
	KeyPrefix string

	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// Table is what `kubectl get` prints of the resource (a printers
	// Handler, or a CRD's printer columns). Nil: printers.Default, the
	// generic Name and Created At.
	Table printers.TableConvertor

	// Decoded, if set, runs on each object decoded from a request body or
	// made by applying a patch, before defaults, with the request's
	// fieldValidation: it may change the object, and returns the warnings
	// to add, or an error; a runtime strict decoding error is reported as
	// the server reports its own (a 400 under fieldValidation=Strict).
	// Custom resources prune and coerce by their schema there.
	Decoded func(obj runtime.Object, fieldValidation string) ([]string, error)
	// Default fills in defaults, as kube-apiserver does when it decodes a
	// request body (before admission), and, when list is set, returns the
	// fields it set as "path=value" (finding them costs: a copy and a
	// comparison of the whole object, worth it only when a trace that
	// records shows them). Nil: no defaults.
	Default func(obj runtime.Object, list bool) []string
	// ValidateName, if set, is the name rule of a kind whose
	// Strategy.Validate does not check the object's metadata (custom
	// resources): Store checks the metadata with it first, as upstream's
	// custom resource strategy does. Nil for the kinds on upstream's
	// validation, which checks the metadata itself.
	ValidateName validation.ValidateNameFunc
	// Strategy applies to writes to the resource itself.
	Strategy Strategy
	// Status, if set, is the strategy of the resource's status
	// subresource: get, update and patch of {plural}/status.
	Status *Strategy
	// Scale, if set, serves the scale subresource ({plural}/scale, an
	// autoscaling/v1 Scale) from the object's replicas.
	Scale *Scale
	// Verbs are the verbs the resource serves, as discovery lists them.
	// Nil: all eight.
	Verbs []string
	// NoWatchCache leaves the resource without a watch cache: its lists
	// and watches go to etcd, as kube-apiserver's default watch cache
	// sizes (DefaultWatchCacheSizes) leave events.
	NoWatchCache bool
	// Fields returns the fields of obj that selectors may use. Nil means
	// metadata.name and metadata.namespace.
	Fields func(obj runtime.Object) fields.Set
	// WatchIndex, if set, is the field the watch cache indexes watchers by
	// (storage.Config.WatchIndex).
	WatchIndex *storage.WatchIndex
	// FieldLabels lists the field selector keys accepted. Nil means the
	// default pair, metadata.name and metadata.namespace, reported with
	// apimachinery's default message; resources with their own list report
	// "field label not supported: X", as their upstream conversion funcs do.
	FieldLabels []string
	// FieldLabelFormat, if set, is the message of a field selector key
	// not in FieldLabels, with the key as its one argument, as the kind's
	// upstream conversion func words it ("field label %q not supported
	// for Job"); empty: "field label not supported: %s".
	FieldLabelFormat string
	// CheckGracefulDelete reports whether a delete of obj is graceful and
	// sets opts.GracePeriodSeconds to the period. Nil: never graceful.
	CheckGracefulDelete func(obj runtime.Object, opts *metav1.DeleteOptions) bool
	// SpecFinalizers, if set, counts the finalizers obj keeps outside
	// metadata.finalizers (a namespace's spec.finalizers): a deleted
	// object goes once an update leaves none of either.
	SpecFinalizers func(obj runtime.Object) int
	// TTLSeconds, when positive, makes etcd drop the object that long after
	// its last write (events).
	TTLSeconds int64
	// ReturnDeletedObject makes a delete that removes the object (or finds
	// its deletion under way) answer the object itself instead of a
	// Success Status, as upstream's stores of pods, services, service
	// accounts and namespaces (among others) are configured.
	ReturnDeletedObject bool
	// InvalidKind, when set, is the kind a 422 names instead of Kind:
	// upstream validates the internal object of the storage it serves
	// through, so an events.k8s.io/v1 Event is refused as core's Event.
	InvalidKind *schema.GroupKind
	// OrphanByDefault makes a delete that names no propagation policy
	// orphan the object's dependents, as upstream's strategies whose
	// DefaultGarbageCollectionPolicy is OrphanDependents for the version
	// served (batch/v1 jobs); false: DeleteDependents (background).
	OrphanByDefault bool
	// StoredAs, if set, is the version the objects are stored in when it
	// is not Kind's (autoscaling/v1 horizontalpodautoscalers): the store
	// converts them on their way to etcd and back.
	StoredAs *StoredVersion
}

// Scale reads and writes an object's replicas for its scale subresource,
// as upstream's scale storage of deployments and replica sets does.
type Scale struct {
	// Replicas returns the replicas the object asks for, those it has,
	// and its label selector.
	Replicas func(obj runtime.Object) (spec, current int32, selector *metav1.LabelSelector)
	// SetReplicas sets the replicas the object asks for.
	SetReplicas func(obj runtime.Object, n int32)
}

// AllVerbs are the verbs of a resource that declares none.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// ServedVerbs returns the verbs the resource serves.
func (r *Resource) ServedVerbs() []string {
	if r.Verbs == nil {
		return AllVerbs
	}
	return r.Verbs
}

// TableConvertor returns the resource's Table conversion.
func (r *Resource) TableConvertor() printers.TableConvertor {
	if r.Table == nil {
		return printers.Default
	}
	return r.Table
}

// keyPrefix is the etcd prefix of the resource's objects.
func (r *Resource) keyPrefix() string {
	if r.KeyPrefix != "" {
		return KeyRoot + r.KeyPrefix + "/"
	}
	return KeyRoot + r.Plural + "/"
}

// gvr is the resource's group, version and plural name: what the
// registry keeps its stores by (a resource served in two versions has a
// store for each).
func (r *Resource) gvr() schema.GroupVersionResource {
	return r.Kind.GroupVersion().WithResource(r.Plural)
}

// GroupResource returns the resource's group and plural name, as errors
// quote it.
func (r *Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Kind.Group, Resource: r.Plural}
}

// attrs returns labels and selectable fields of obj.
func (r *Resource) attrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, nil, err
	}
	var fs fields.Set
	if r.Fields != nil {
		fs = r.Fields(obj)
	} else {
		fs = defaultFields(m)
	}
	return labels.Set(m.GetLabels()), fs, nil
}

// convertFieldSelector rejects selector keys the resource does not support,
// with the message kube-apiserver gives.
func (r *Resource) convertFieldSelector(sel fields.Selector) (fields.Selector, error) {
	if sel == nil || sel.Empty() {
		return sel, nil
	}
	return sel.Transform(func(label, value string) (string, string, error) {
		if r.FieldLabels == nil {
			if label == "metadata.name" || label == "metadata.namespace" {
				return label, value, nil
			}
			return "", "", fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
		}
		if slices.Contains(r.FieldLabels, label) {
			return label, value, nil
		}
		if r.FieldLabelFormat != "" {
			return "", "", fmt.Errorf(r.FieldLabelFormat, label)
		}
		return "", "", fmt.Errorf("field label not supported: %s", label)
	})
}

// defaultFields are the fields every object may be selected by.
func defaultFields(m metav1.Object) fields.Set {
	fs := fields.Set{"metadata.name": m.GetName()}
	if m.GetNamespace() != "" {
		fs["metadata.namespace"] = m.GetNamespace()
	}
	return fs
}

// ValidateObjectFunc is a check run on an object just before it is
// written (validating admission).
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// ValidateObjectUpdateFunc is the same for updates.
type ValidateObjectUpdateFunc func(ctx context.Context, obj, old runtime.Object) error

// UpdatedObjectFunc computes the object to store from the current one
// (for PUT it returns the request's object; for PATCH it applies the
// patch). It may be called more than once if the object changes meanwhile.
type UpdatedObjectFunc func(ctx context.Context, current runtime.Object) (runtime.Object, error)

// Options qualify a write through a Store.
type Options struct {
	// DryRun runs every step of the write but stores nothing.
	DryRun bool
	// UID, if set, must be the stored object's for an Update to go ahead
	// (409 otherwise, before anything else is checked): a PUT's body's
	// metadata.uid, as upstream's defaultUpdatedObjectInfo.Preconditions.
	UID types.UID
	// AllowCreate lets an Update create a missing object whatever the
	// strategy says (a server-side apply, as upstream's forceAllowCreate).
	AllowCreate bool
}

func (s *Store) writeOptions(o Options) storage.WriteOptions {
	return storage.WriteOptions{TTL: s.Resource.TTLSeconds, DryRun: o.DryRun}
}

// PodsMatch reports whether pod passes the label and field selectors of
// opts, after the field selector is checked against what pods support.
// It is what a list of pods does per object, without storage (fuzzing).
func PodsMatch(pod *corev1.Pod, opts *metainternalversion.ListOptions) (bool, error) {
	fs, err := Pods.convertFieldSelector(opts.FieldSelector)
	if err != nil {
		return false, apierrors.NewBadRequest(err.Error())
	}
	return storage.Predicate{Label: opts.LabelSelector, Field: fs, GetAttrs: Pods.attrs}.Matches(pod)
}
