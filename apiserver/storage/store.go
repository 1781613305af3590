package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Config describes the resource a Store keeps.
type Config struct {
	// Client reaches etcd.
	Client *clientv3.Client
	// Codec encodes objects as stored (JSON with apiVersion and kind).
	Codec runtime.Codec
	// Prefix is the key prefix of the resource, ending in "/", for example
	// "/registry/pods/".
	Prefix string
	// NewFunc returns an empty object, NewListFunc an empty list.
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// BookmarkInterval is how often an idle watch that allows bookmarks
	// gets one; 0 means DefaultBookmarkInterval.
	BookmarkInterval time.Duration
	// WatchCache sizes the watch cache's history (the zero value: as
	// kube-apiserver's). The cache works while Run runs; without it every
	// watch is served by etcd.
	WatchCache WindowConfig
	// OnWrite, if set, is called after each write the Store made to etcd
	// (see Write). Nil: nobody is told.
	OnWrite func(ctx context.Context, w Write)
	// WatchIndex, if set, is the field the watch cache indexes watchers
	// by (pods: spec.nodeName). Nil: every watcher sees every change.
	WatchIndex *WatchIndex
	// Kind, if set, is the apiVersion and kind Codec stores every
	// object with: the watch cache then takes a copy of each object the
	// Store creates rather than decoding its value again from etcd's
	// event (see writtenObjects). Leave it empty when decoding may give
	// something else than a copy (custom resources, converted between
	// versions).
	Kind schema.GroupVersionKind
	// GroupResource labels the Store's requests to etcd in kube-apiserver's
	// etcd_request_duration_seconds and etcd_requests_total (metrics.go).
	GroupResource schema.GroupResource
}

// Write is one change a Store made in etcd, as OnWrite is told about it:
// synchronously, on the goroutine that wrote, right after etcd accepted
// the write and before the Store returns to its caller, with the context
// the caller passed. Dry runs and updates that change nothing write
// nothing and are not reported. OnWrite must not block and must not
// modify Object.
type Write struct {
	// Op is "create", "update" or "delete".
	Op  string
	Key string
	// Revision is the write's revision: the object's new resourceVersion
	// (for a delete, the revision of the deletion).
	Revision int64
	// PrevRevision is the revision of the value replaced or deleted (0
	// for a create).
	PrevRevision int64
	// Value is the bytes stored, exactly as written; nil for a delete.
	Value []byte
	// Object is the object written, stamped with Revision; for a delete,
	// the object as it was last stored (stamped with PrevRevision).
	Object runtime.Object
}

// DefaultBookmarkInterval is how often kube-apiserver's watch cache sends
// bookmarks to idle watchers: about once a minute.
const DefaultBookmarkInterval = time.Minute

// Store reads and writes one resource in etcd. It is safe for concurrent use.
type Store struct {
	client  *clientv3.Client
	codec   runtime.Codec
	prefix  string
	newFunc func() runtime.Object
	newList func() runtime.Object
	leases  *leaseManager
	cache   *watchCache
	onWrite func(ctx context.Context, w Write)
	index   *WatchIndex
	kind    schema.GroupVersionKind
	gr      schema.GroupResource

	bookmarkInterval time.Duration
}

// New returns a Store for cfg.
func New(cfg Config) (*Store, error) {
	switch {
	case cfg.Client == nil:
		return nil, errors.New("storage: no etcd client")
	case cfg.Codec == nil:
		return nil, errors.New("storage: no codec")
	case !strings.HasPrefix(cfg.Prefix, "/") || !strings.HasSuffix(cfg.Prefix, "/"):
		return nil, fmt.Errorf("storage: prefix %q must start and end with /", cfg.Prefix)
	case cfg.NewFunc == nil || cfg.NewListFunc == nil:
		return nil, errors.New("storage: NewFunc and NewListFunc are required")
	}
	if cfg.BookmarkInterval == 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	s := &Store{
		bookmarkInterval: cfg.BookmarkInterval,
		client:           cfg.Client,
		codec:            cfg.Codec,
		prefix:           cfg.Prefix,
		newFunc:          cfg.NewFunc,
		newList:          cfg.NewListFunc,
		leases:           newLeaseManager(cfg.Client),
		onWrite:          cfg.OnWrite,
		index:            cfg.WatchIndex,
		kind:             cfg.Kind,
		gr:               cfg.GroupResource,
	}
	s.cache = &watchCache{s: s, windowCfg: cfg.WatchCache}
	return s, nil
}

// Prefix returns the key prefix of the resource, ending in "/".
func (s *Store) Prefix() string { return s.prefix }

// Preconditions must hold for an update or delete to go ahead.
type Preconditions struct {
	UID             *types.UID
	ResourceVersion *string
}

// Check returns an ErrCodeInvalidObj error when obj does not satisfy p.
func (p *Preconditions) Check(key string, obj runtime.Object) error {
	if p == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return &Error{Code: ErrCodeInvalidObj, Key: key, Msg: err.Error()}
	}
	if p.UID != nil && *p.UID != m.GetUID() {
		return &Error{Code: ErrCodeInvalidObj, Key: key, Msg: fmt.Sprintf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID())}
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
		return &Error{Code: ErrCodeInvalidObj, Key: key, Msg: fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
			*p.ResourceVersion, m.GetResourceVersion())}
	}
	return nil
}

// ParseResourceVersion parses a resourceVersion; "" is 0. Its error is
// upstream's APIObjectVersioner.ParseResourceVersion's, a field error on
// resourceVersion holding strconv's text. Get and Watch return it as it is
// (a 500 without a reason, as kube-apiserver answers); List wraps it into
// a 400 (badResourceVersion). Revisions are int64s, so a number past
// that is out of range.
func ParseResourceVersion(rv string) (int64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 63)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())}.ToAggregate()
	}
	return int64(n), nil
}

// badResourceVersion is how a list refuses a resourceVersion that does
// not parse, as upstream's store's GetList does.
func badResourceVersion(err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
}

// setResourceVersion stamps obj with rev.
func setResourceVersion(obj runtime.Object, rev int64) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	m.SetResourceVersion(strconv.FormatInt(rev, 10))
	return nil
}

// encode returns the stored form of obj: its JSON without resourceVersion,
// which etcd keeps as the key's mod revision instead.
func (s *Store) encode(obj runtime.Object) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	rv := m.GetResourceVersion()
	m.SetResourceVersion("")
	m.SetSelfLink("")
	defer m.SetResourceVersion(rv)
	var buf bytes.Buffer
	if err := s.codec.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return buf.Bytes(), nil
}

// decode turns stored bytes into an object stamped with rev.
func (s *Store) decode(data []byte, rev int64) (runtime.Object, error) {
	obj, _, err := s.codec.Decode(data, nil, s.newFunc())
	if err != nil {
		return nil, fmt.Errorf("decode stored object: %w", err)
	}
	if err := setResourceVersion(obj, rev); err != nil {
		return nil, err
	}
	return obj, nil
}

// WriteOptions qualify a write.
type WriteOptions struct {
	// TTL > 0 makes etcd delete the key at least TTL seconds after the
	// write (events use this).
	TTL int64
	// DryRun does every check and computes the result, but writes nothing.
	DryRun bool
}

// Create stores obj at key if the key does not exist, and returns obj
// stamped with the new resourceVersion. obj must not carry a
// resourceVersion. A dry run returns obj without a resourceVersion.
func (s *Store) Create(ctx context.Context, key string, obj runtime.Object, opts WriteOptions) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if m.GetResourceVersion() != "" {
		return nil, errors.New("resourceVersion should not be set on objects to be created")
	}
	data, err := s.encode(obj)
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		start := time.Now()
		resp, err := s.client.Get(ctx, key, clientv3.WithCountOnly())
		s.observe("get", start, err)
		if err != nil {
			return nil, err
		}
		if resp.Count > 0 {
			return nil, &Error{Code: ErrCodeKeyExists, Key: key, Rev: resp.Header.Revision}
		}
		return obj, nil
	}
	putOpts, err := s.putOptions(ctx, opts)
	if err != nil {
		return nil, err
	}
	expected := s.cache.expect(key, data, obj)
	start := time.Now()
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(data), putOpts...)).
		Commit()
	s.observe("create", start, err)
	if err != nil {
		s.cache.withdraw(key, expected)
		return nil, err
	}
	if !resp.Succeeded {
		s.cache.withdraw(key, expected)
		return nil, &Error{Code: ErrCodeKeyExists, Key: key, Rev: resp.Header.Revision}
	}
	if err := setResourceVersion(obj, resp.Header.Revision); err != nil {
		return nil, err
	}
	s.wrote(ctx, Write{Op: "create", Key: key, Revision: resp.Header.Revision, Value: data, Object: obj})
	return obj, nil
}

// wrote tells OnWrite about w.
func (s *Store) wrote(ctx context.Context, w Write) {
	if s.onWrite != nil {
		s.onWrite(ctx, w)
	}
}

// GetOptions qualify a Get.
type GetOptions struct {
	// ResourceVersion "" or "0" reads the latest state; "N" requires the
	// latest state to be at least N (else a 504 Too large resource version).
	ResourceVersion string
}

// Get returns the object at key, stamped with its mod revision.
func (s *Store) Get(ctx context.Context, key string, opts GetOptions) (runtime.Object, error) {
	minRV, err := ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	resp, err := s.client.Get(ctx, key)
	s.observe("get", start, err)
	if err != nil {
		return nil, err
	}
	if err := checkMinimumRV(minRV, resp.Header.Revision); err != nil {
		return nil, err
	}
	if len(resp.Kvs) == 0 {
		return nil, &Error{Code: ErrCodeKeyNotFound, Key: key, Rev: resp.Header.Revision}
	}
	return s.decode(resp.Kvs[0].Value, resp.Kvs[0].ModRevision)
}

// checkMinimumRV fails like kube-apiserver when a client asks for a state
// newer than etcd has.
func checkMinimumRV(minRV, current int64) error {
	if minRV > current {
		return tooLargeResourceVersion(minRV, current)
	}
	return nil
}

func tooLargeResourceVersion(want, current int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", want, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}

// CurrentRevision returns etcd's current revision.
func (s *Store) CurrentRevision(ctx context.Context) (int64, error) {
	start := time.Now()
	resp, err := s.client.Get(ctx, s.prefix, clientv3.WithCountOnly())
	s.observe("getCurrentResourceVersion", start, err)
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// UpdateFunc computes the new state from the current one. It gets a private
// copy it may modify and return. Returning an error aborts the update.
type UpdateFunc func(current runtime.Object) (runtime.Object, error)

// putOptions returns the etcd options for a put with opts.
func (s *Store) putOptions(ctx context.Context, opts WriteOptions) ([]clientv3.OpOption, error) {
	if opts.TTL <= 0 {
		return nil, nil
	}
	id, err := s.leases.get(ctx, opts.TTL)
	if err != nil {
		return nil, err
	}
	return []clientv3.OpOption{clientv3.WithLease(id)}, nil
}

// Delete removes key if preconditions and validateDeletion (may be nil)
// accept the current object, retrying if the key changes meanwhile. It
// returns the object as it was last stored. A dry run removes nothing.
func (s *Store) Delete(ctx context.Context, key string, precond *Preconditions, validateDeletion func(runtime.Object) error, opts WriteOptions) (runtime.Object, error) {
	start := time.Now()
	resp, err := s.client.Get(ctx, key)
	s.observe("get", start, err)
	if err != nil {
		return nil, err
	}
	for {
		if len(resp.Kvs) == 0 {
			return nil, &Error{Code: ErrCodeKeyNotFound, Key: key, Rev: resp.Header.Revision}
		}
		kv := resp.Kvs[0]
		current, err := s.decode(kv.Value, kv.ModRevision)
		if err != nil {
			return nil, err
		}
		if err := precond.Check(key, current); err != nil {
			return nil, err
		}
		if validateDeletion != nil {
			if err := validateDeletion(current); err != nil {
				return nil, err
			}
		}
		if opts.DryRun {
			return current, nil
		}
		start := time.Now()
		txn, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", kv.ModRevision)).
			Then(clientv3.OpDelete(key)).
			Else(clientv3.OpGet(key)).
			Commit()
		s.observe("delete", start, err)
		if err != nil {
			return nil, err
		}
		if txn.Succeeded {
			s.wrote(ctx, Write{Op: "delete", Key: key, Revision: txn.Header.Revision, PrevRevision: kv.ModRevision, Object: current})
			return current, nil
		}
		resp = (*clientv3.GetResponse)(txn.Responses[0].GetResponseRange())
	}
}

// Compact discards the history before rev. Reads at older revisions,
// and watches served by etcd (not by the watch cache), then fail with
// 410 Expired.
func Compact(ctx context.Context, client *clientv3.Client, rev int64) error {
	_, err := client.Compact(ctx, rev, clientv3.WithCompactPhysical())
	if errors.Is(err, rpctypes.ErrCompacted) {
		return nil
	}
	return err
}
