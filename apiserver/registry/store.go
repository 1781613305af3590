package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/warning"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// KeyRoot is the prefix under which every object is stored.
const KeyRoot = "/registry/"

// optimisticLockMsg is kube-apiserver's text for a stale resourceVersion.
const optimisticLockMsg = "the object has been modified; please apply your changes to the latest version and try again"

// maxGenerateNameAttempts is how often a create with generateName retries
// with a new random name when the one it drew is taken.
const maxGenerateNameAttempts = 8

// Store serves one resource (or subresource) from etcd with the resource's
// strategy. It is safe for concurrent use.
type Store struct {
	Resource *Resource
	strategy Strategy
	storage  *storage.Store
}

// StoreConfig is what NewStore needs besides the resource.
type StoreConfig struct {
	Client           *clientv3.Client
	BookmarkInterval time.Duration
	// WatchCache sizes every store's watch cache history (zero: as
	// kube-apiserver's).
	WatchCache storage.WindowConfig
	// OnWrite is told about every write to etcd (storage.Config.OnWrite).
	OnWrite func(ctx context.Context, w storage.Write)
	// StorageMediaType is the media type objects are written in
	// (StorageCodec; "": DefaultStorageMediaType). Values of either
	// media type are read.
	StorageMediaType string
}

// NewStore returns a Store keeping res under /registry/<plural>/.
func NewStore(res *Resource, cfg StoreConfig) (*Store, error) {
	codec, err := StorageCodec(cfg.StorageMediaType)
	if err != nil {
		return nil, err
	}
	kind := res.Kind
	if res.StoredAs != nil {
		// Decoding converts: the watch cache cannot keep a copy of what
		// the store wrote (storage.Config.Kind).
		codec, kind = convertingCodec{Codec: codec, v: res.StoredAs}, schema.GroupVersionKind{}
	}
	st, err := storage.New(storage.Config{
		Client:           cfg.Client,
		Codec:            codec,
		Prefix:           res.keyPrefix(),
		NewFunc:          res.NewFunc,
		NewListFunc:      res.NewListFunc,
		BookmarkInterval: cfg.BookmarkInterval,
		WatchCache:       cfg.WatchCache,
		OnWrite:          cfg.OnWrite,
		WatchIndex:       res.WatchIndex,
		// The built-in resources are stored as their Kind: the watch
		// cache may take a copy of what the store created.
		Kind:          kind,
		GroupResource: schema.GroupResource{Group: res.Kind.Group, Resource: res.Plural},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.Plural, err)
	}
	return &Store{Resource: res, strategy: res.Strategy, storage: st}, nil
}

// WithStrategy returns a Store on the same data that writes with st, as a
// subresource endpoint (pods/status) does.
func (s *Store) WithStrategy(st Strategy) *Store {
	c := *s
	c.strategy = st
	return &c
}

// Storage returns the underlying etcd store.
func (s *Store) Storage() *storage.Store { return s.storage }

// Key returns the etcd key of an object.
func (s *Store) Key(namespace, name string) string {
	if s.Resource.Namespaced {
		return s.storage.Prefix() + namespace + "/" + name
	}
	return s.storage.Prefix() + name
}

// listKey is the prefix of all objects in namespace ("" = all).
func (s *Store) listKey(namespace string) string {
	if s.Resource.Namespaced && namespace != "" {
		return s.storage.Prefix() + namespace + "/"
	}
	return s.storage.Prefix()
}

// checkedKey validates name and namespace as path segments before they
// become part of a key.
func (s *Store) checkedKey(namespace, name string) (string, error) {
	if msgs := path.IsValidPathSegmentName(name); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	if s.Resource.Namespaced {
		if namespace == "" {
			return "", apierrors.NewBadRequest("Namespace parameter required.")
		}
		if msgs := path.IsValidPathSegmentName(namespace); len(msgs) > 0 {
			return "", apierrors.NewBadRequest(fmt.Sprintf("Namespace parameter invalid: %q: %s", namespace, strings.Join(msgs, ";")))
		}
	}
	return s.Key(namespace, name), nil
}

// interpret turns a storage error into the API error for name.
func (s *Store) interpret(err error, name string) error {
	gr := s.Resource.GroupResource()
	switch {
	case err == nil:
		return nil
	case storage.IsNotFound(err):
		return apierrors.NewNotFound(gr, name)
	case storage.IsExist(err):
		return apierrors.NewAlreadyExists(gr, name)
	case storage.IsInvalidObj(err):
		return apierrors.NewConflict(gr, name, err)
	}
	return err
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return m, nil
}

// matchNamespace makes obj's namespace the request's, as kube-apiserver
// does: unset takes the request's, cluster-scoped clears it, a different
// one is an error.
func (s *Store) matchNamespace(m metav1.Object, namespace string) error {
	if !s.Resource.Namespaced {
		namespace = ""
	}
	switch {
	case m.GetNamespace() == namespace:
	case m.GetNamespace() == "":
		m.SetNamespace(namespace)
	case namespace == "":
		m.SetNamespace("")
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

func (s *Store) invalid(name string, errs field.ErrorList) error {
	gk := s.Resource.Kind.GroupKind()
	if s.Resource.InvalidKind != nil {
		gk = *s.Resource.InvalidKind
	}
	return apierrors.NewInvalid(gk, name, errs)
}

// beforeCreate applies the strategy and validation to a new object, then
// records the strategy's warnings, as rest.BeforeCreate
// (k8s.io/apiserver/pkg/registry/rest/create.go) does.
func (s *Store) beforeCreate(ctx context.Context, obj runtime.Object, namespace string) error {
	m, err := metaOf(obj)
	if err != nil {
		return err
	}
	if err := s.matchNamespace(m, namespace); err != nil {
		return err
	}
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetGeneration(0)
	m.SetSelfLink("")
	// The system fields come first, as upstream's store fills them before
	// rest.BeforeCreate: a job's generated selector is its uid.
	m.SetUID(uuid.NewUUID())
	m.SetCreationTimestamp(metav1.Now())
	if s.strategy.PrepareForCreate != nil {
		s.strategy.PrepareForCreate(obj)
	}
	if errs := s.validateCreate(obj, m); len(errs) > 0 {
		return s.invalid(m.GetName(), errs)
	}
	if s.strategy.WarningsOnCreate != nil {
		addWarnings(ctx, s.strategy.WarningsOnCreate(ctx, obj))
	}
	return nil
}

// addWarnings adds each warning to the request's recorder (none: dropped),
// as upstream's rest.BeforeCreate and BeforeUpdate do.
func addWarnings(ctx context.Context, warnings []string) {
	for _, w := range warnings {
		warning.AddWarning(ctx, "", w)
	}
}

// validateCreate runs the checks of a create as kube-apiserver's
// rest.ValidateCreate (k8s.io/apiserver/pkg/registry/rest/create.go): the
// strategy's, then, only if they found nothing, the generic metadata
// checks with the name a path segment, so that a bad name the strategy
// reported is not reported twice. A kind with its own name rule
// (Resource.ValidateName) has its metadata checked first, as part of its
// strategy.
func (s *Store) validateCreate(obj runtime.Object, m metav1.Object) field.ErrorList {
	fld := field.NewPath("metadata")
	var errs field.ErrorList
	if s.Resource.ValidateName != nil {
		errs = validation.ValidateObjectMetaAccessor(m, s.Resource.Namespaced, s.Resource.ValidateName, fld)
	}
	if s.strategy.Validate != nil {
		errs = append(errs, s.strategy.Validate(obj)...)
	}
	if len(errs) > 0 {
		return errs
	}
	return validation.ValidateObjectMetaAccessor(m, s.Resource.Namespaced, path.ValidatePathSegmentName, fld)
}

// Create stores a new object in namespace after the strategy, validation
// and createValidation (may be nil) accept it. A generateName without name
// draws random names until one is free.
func (s *Store) Create(ctx context.Context, namespace string, obj runtime.Object, createValidation ValidateObjectFunc, opts Options) (out runtime.Object, err error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	generate := m.GetName() == "" && m.GetGenerateName() != ""
	if generate {
		m.SetName(generateName(m.GetGenerateName()))
	}
	if s.strategy.BeginCreate != nil {
		finish, err := s.strategy.BeginCreate(ctx, obj, opts)
		if err != nil {
			return nil, err
		}
		defer func() { finish(out) }()
	}
	if err := s.beforeCreate(ctx, obj, namespace); err != nil {
		return nil, err
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		key, err := s.checkedKey(m.GetNamespace(), m.GetName())
		if err != nil {
			return nil, err
		}
		stored, err := s.storage.Create(ctx, key, obj, s.writeOptions(opts))
		if storage.IsExist(err) && generate && attempt < maxGenerateNameAttempts {
			m.SetName(generateName(m.GetGenerateName()))
			continue
		}
		if err != nil {
			return nil, s.interpret(err, m.GetName())
		}
		return stored, nil
	}
}

// Get returns one object.
func (s *Store) Get(ctx context.Context, namespace, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	key, err := s.checkedKey(namespace, name)
	if err != nil {
		return nil, err
	}
	var rv string
	if opts != nil {
		rv = opts.ResourceVersion
	}
	obj, err := s.storage.Get(ctx, key, storage.GetOptions{ResourceVersion: rv})
	return obj, s.interpret(err, name)
}

// storageListOptions turns API list options into storage ones, checking the
// field selector against the resource and narrowing to one key when the
// selector names the object.
func (s *Store) storageListOptions(namespace string, opts *metainternalversion.ListOptions) (string, storage.ListOptions, error) {
	if opts == nil {
		opts = &metainternalversion.ListOptions{}
	}
	fs, err := s.Resource.convertFieldSelector(opts.FieldSelector)
	if err != nil {
		return "", storage.ListOptions{}, apierrors.NewBadRequest(err.Error())
	}
	pred := storage.Predicate{
		Label:    opts.LabelSelector,
		Field:    fs,
		GetAttrs: s.Resource.attrs,
		Limit:    opts.Limit,
		Continue: opts.Continue,
	}
	key := s.listKey(namespace)
	if name, ok := pred.MatchesSingle(); ok && (namespace != "" || !s.Resource.Namespaced) {
		if k, err := s.checkedKey(namespace, name); err == nil {
			key = k
		}
	}
	return key, storage.ListOptions{
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: opts.ResourceVersionMatch,
		Predicate:            pred,
		AllowWatchBookmarks:  opts.AllowWatchBookmarks,
		SendInitialEvents:    opts.SendInitialEvents,
	}, nil
}

// List returns the objects in namespace ("" = all) that match opts.
func (s *Store) List(ctx context.Context, namespace string, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	key, lo, err := s.storageListOptions(namespace, opts)
	if err != nil {
		return nil, err
	}
	return s.storage.GetList(ctx, key, lo)
}

// Watch streams changes in namespace ("" = all) that match opts.
func (s *Store) Watch(ctx context.Context, namespace string, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	key, lo, err := s.storageListOptions(namespace, opts)
	if err != nil {
		return nil, err
	}
	return s.storage.Watch(ctx, key, lo)
}

// Update replaces an object with what objInfo computes from the current
// one, if it has opts.UID (when set). A resourceVersion in the new object
// must match the stored one (409 Conflict otherwise); without one the
// update is unconditional if the strategy allows. A missing object is created if the strategy allows
// (created is then true). Removing the last finalizer of an object being
// deleted deletes it.
func (s *Store) Update(ctx context.Context, namespace, name string, objInfo UpdatedObjectFunc, createValidation ValidateObjectFunc, updateValidation ValidateObjectUpdateFunc, opts Options) (out runtime.Object, created bool, err error) {
	key, err := s.checkedKey(namespace, name)
	if err != nil {
		return nil, false, err
	}
	var deleteAfter bool
	var finishUpdate func(runtime.Object)
	defer func() {
		if finishUpdate != nil {
			finishUpdate(out)
		}
	}()
	var precond *storage.Preconditions
	if opts.UID != "" {
		precond = &storage.Preconditions{UID: &opts.UID}
	}
	out, err = s.storage.GuaranteedUpdate(ctx, key, precond, s.strategy.AllowCreateOnUpdate || opts.AllowCreate, s.writeOptions(opts), func(current runtime.Object) (runtime.Object, error) {
		cm, err := metaOf(current)
		if err != nil {
			return nil, err
		}
		exists := cm.GetResourceVersion() != ""
		obj, err := objInfo(ctx, current.DeepCopyObject())
		if err != nil {
			return nil, err
		}
		m, err := metaOf(obj)
		if err != nil {
			return nil, err
		}
		if m.GetName() != name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name))
		}
		if !exists {
			created = true
			if finishUpdate != nil {
				finishUpdate(nil) // an earlier attempt's
			}
			finishUpdate, err = s.beginCreate(ctx, obj, opts)
			if err != nil {
				return nil, err
			}
			return s.createOnUpdate(ctx, obj, m, namespace, createValidation)
		}
		created = false
		if err := s.checkResourceVersion(m, cm); err != nil {
			return nil, err
		}
		if s.strategy.BeginUpdate != nil {
			if finishUpdate != nil {
				finishUpdate(nil) // an earlier attempt's
			}
			if finishUpdate, err = s.strategy.BeginUpdate(ctx, obj, current, opts); err != nil {
				finishUpdate = nil
				return nil, err
			}
		}
		if err := s.beforeUpdate(ctx, obj, current, namespace); err != nil {
			return nil, err
		}
		if updateValidation != nil {
			if err := updateValidation(ctx, obj, current); err != nil {
				return nil, err
			}
		}
		deleteAfter = s.deleteDuringUpdate(obj, current, m, cm)
		return obj, nil
	})
	if err != nil {
		return nil, false, s.interpret(err, name)
	}
	if deleteAfter {
		if err := s.deleteUnfinalized(ctx, key, name, opts); err != nil {
			return nil, false, err
		}
	}
	return out, created, nil
}

// checkResourceVersion checks the resourceVersion of an update (m) against
// the stored object's (cm): none is an unconditional update if the
// strategy allows it (and then takes the stored one), else a 422; another
// is a 409.
func (s *Store) checkResourceVersion(m, cm metav1.Object) error {
	gr := s.Resource.GroupResource()
	switch newRV := m.GetResourceVersion(); {
	case newRV == "" && s.strategy.AllowUnconditionalUpdate:
		m.SetResourceVersion(cm.GetResourceVersion())
	case newRV == "":
		return apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: gr.Resource}, m.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update")})
	case newRV != cm.GetResourceVersion():
		return apierrors.NewConflict(gr, m.GetName(), errors.New(optimisticLockMsg))
	}
	return nil
}

// beginCreate runs the strategy's BeginCreate, if any, for an update that
// creates (upstream's Store.Update does too: a service applied into being
// gets its cluster IP); it returns the finish func, nil without one.
func (s *Store) beginCreate(ctx context.Context, obj runtime.Object, opts Options) (func(runtime.Object), error) {
	if s.strategy.BeginCreate == nil {
		return nil, nil
	}
	return s.strategy.BeginCreate(ctx, obj, opts)
}

// createOnUpdate readies obj, which an update found missing, for its
// create (the strategy allows create on update): no resourceVersion, the
// strategy's create preparation and createValidation (may be nil).
func (s *Store) createOnUpdate(ctx context.Context, obj runtime.Object, m metav1.Object, namespace string, createValidation ValidateObjectFunc) (runtime.Object, error) {
	m.SetResourceVersion("")
	if err := s.beforeCreate(ctx, obj, namespace); err != nil {
		return nil, err
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// deleteDuringUpdate says whether an update to obj (metadata m) of the
// stored current (cm) removes the object, as upstream's
// ShouldDeleteDuringUpdate (and, for namespaces, spec.finalizers too, as
// ShouldDeleteNamespaceDuringUpdate): it empties the finalizers of an
// object asked to go, with no grace period or one of 0 (a CRD's delete
// sets none).
func (s *Store) deleteDuringUpdate(obj, current runtime.Object, m, cm metav1.Object) bool {
	return s.finalizers(obj, m) == 0 && s.finalizers(current, cm) > 0 &&
		cm.GetDeletionTimestamp() != nil && (cm.GetDeletionGracePeriodSeconds() == nil || *cm.GetDeletionGracePeriodSeconds() == 0)
}

// finalizers counts what holds obj (metadata m) once deleted: its
// metadata.finalizers and those the resource keeps elsewhere.
func (s *Store) finalizers(obj runtime.Object, m metav1.Object) int {
	n := len(m.GetFinalizers())
	if s.Resource.SpecFinalizers != nil {
		n += s.Resource.SpecFinalizers(obj)
	}
	return n
}

// deleteUnfinalized deletes the object at key after an update emptied its
// finalizers. No resourceVersion precondition: a write in between (a
// controller's status update) must not leave the object stored with a
// deletionTimestamp and no finalizers, which nothing would ever remove.
// It goes unless a finalizer is back.
func (s *Store) deleteUnfinalized(ctx context.Context, key, name string, opts Options) error {
	_, err := s.storage.Delete(ctx, key, nil, s.stillWithoutFinalizers, s.writeOptions(opts))
	if err != nil && !storage.IsNotFound(err) && !errors.Is(err, errFinalizerBack) {
		return s.interpret(err, name)
	}
	return nil
}

// errFinalizerBack: an object whose finalizers were emptied got one
// again before its removal.
var errFinalizerBack = errors.New("a finalizer was added again")

// stillWithoutFinalizers lets the removal after an update that emptied the
// finalizers go ahead while the object, as stored, still has none.
func (s *Store) stillWithoutFinalizers(obj runtime.Object) error {
	m, err := metaOf(obj)
	if err != nil {
		return err
	}
	if s.finalizers(obj, m) > 0 || m.GetDeletionTimestamp() == nil {
		return errFinalizerBack
	}
	return nil
}

func mustRV(obj runtime.Object) string {
	m, _ := meta.Accessor(obj)
	return m.GetResourceVersion()
}

// beforeUpdate applies the strategy and validation to an update of old,
// then records the strategy's warnings, as rest.BeforeUpdate
// (k8s.io/apiserver/pkg/registry/rest/update.go) does.
func (s *Store) beforeUpdate(ctx context.Context, obj, old runtime.Object, namespace string) error {
	m, err := metaOf(obj)
	if err != nil {
		return err
	}
	om, err := metaOf(old)
	if err != nil {
		return err
	}
	if err := s.matchNamespace(m, namespace); err != nil {
		return err
	}
	// Clients cannot set the generation; the strategy bumps it.
	m.SetGeneration(om.GetGeneration())
	m.SetSelfLink("")
	if s.strategy.PrepareForUpdate != nil {
		s.strategy.PrepareForUpdate(obj, old)
	}
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	if ts := om.GetCreationTimestamp(); !ts.IsZero() {
		m.SetCreationTimestamp(ts)
	}
	if om.GetDeletionTimestamp() != nil {
		m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	}
	if om.GetDeletionGracePeriodSeconds() != nil && m.GetDeletionGracePeriodSeconds() == nil {
		m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	}
	fld := field.NewPath("metadata")
	errs := validation.ValidateObjectMetaAccessor(m, s.Resource.Namespaced, path.ValidatePathSegmentName, fld)
	errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(m, om, fld)...)
	if s.strategy.ValidateUpdate != nil {
		errs = append(errs, s.strategy.ValidateUpdate(obj, old)...)
	}
	if len(errs) > 0 {
		return s.invalid(m.GetName(), errs)
	}
	if s.strategy.WarningsOnUpdate != nil {
		addWarnings(ctx, s.strategy.WarningsOnUpdate(ctx, obj, old))
	}
	return nil
}
