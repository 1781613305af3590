package storage

import (
	"bytes"
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
)

// GuaranteedUpdate reads key, checks preconditions, applies tryUpdate and
// writes the result if the key did not change meanwhile, retrying with the
// fresh state when it did. If the result encodes to the stored bytes, nothing
// is written and the resourceVersion stays the same (no watch event).
// With ignoreNotFound, a missing key is created from tryUpdate(empty object).
// A dry run returns the result stamped with the current resourceVersion.
//
// As kube-apiserver's cacher does (it hands the etcd store the object its
// watch cache holds, cachedExistingObject), the first try starts from a
// copy of the watch cache's newest state of the key, without reading
// etcd: the write's compare on the key's mod revision catches a state
// that was not the newest. Whatever that state alone would decide — a
// failed precondition, an error of tryUpdate, nothing to write, a dry run
// — is decided again on the state read from etcd.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, precond *Preconditions, ignoreNotFound bool, opts WriteOptions, tryUpdate UpdateFunc) (runtime.Object, error) {
	st, err := s.cachedUpdateState(key)
	if st == nil && err == nil {
		st, err = s.readUpdateState(ctx, key)
	}
	if err != nil {
		return nil, err
	}
	for {
		updated, data, err := st.apply(s, key, precond, ignoreNotFound, tryUpdate)
		if err == nil && (opts.DryRun || (st.stored != nil && bytes.Equal(data, st.stored))) {
			if st.suggested {
				st, err = s.readUpdateState(ctx, key)
				if err != nil {
					return nil, err
				}
				continue
			}
			if err := st.stamp(updated); err != nil {
				return nil, err
			}
			return updated, nil
		}
		if err != nil {
			if !st.suggested {
				return nil, err
			}
			if st, err = s.readUpdateState(ctx, key); err != nil {
				return nil, err
			}
			continue
		}
		done, next, err := s.putIfUnchanged(ctx, key, st.modRev, data, opts, updated)
		if err != nil {
			return nil, err
		}
		if done {
			return updated, nil
		}
		// Someone else wrote first: start again from what they wrote.
		if st, err = s.updateStateOf(next); err != nil {
			return nil, err
		}
	}
}

// updateState is the state an update starts from.
type updateState struct {
	obj    runtime.Object // nil: the key does not exist
	modRev int64          // the key's mod revision; 0 if it does not exist
	stored []byte         // the bytes etcd holds (re-encoded for a suggestion)
	rev    int64          // the revision read at (for a key not found)
	// suggested: a copy of the watch cache's state, not read from etcd.
	suggested bool
}

// cachedUpdateState is a copy of the watch cache's newest state of key,
// or nil (no cache running, the key unknown to it).
func (s *Store) cachedUpdateState(key string) (*updateState, error) {
	if s.cache == nil {
		return nil, nil
	}
	obj, rev := s.cache.latestState(key)
	if obj == nil {
		return nil, nil
	}
	obj = obj.DeepCopyObject()
	stored, err := s.encode(obj)
	if err != nil {
		return nil, nil // read etcd instead
	}
	return &updateState{obj: obj, modRev: rev, stored: stored, suggested: true}, nil
}

// readUpdateState reads key from etcd.
func (s *Store) readUpdateState(ctx context.Context, key string) (*updateState, error) {
	start := time.Now()
	resp, err := s.client.Get(ctx, key)
	s.observe("get", start, err)
	if err != nil {
		return nil, err
	}
	return s.updateStateOf(resp)
}

// updateStateOf decodes a read of the key.
func (s *Store) updateStateOf(resp *clientv3.GetResponse) (*updateState, error) {
	st := &updateState{rev: resp.Header.Revision}
	if len(resp.Kvs) == 0 {
		return st, nil
	}
	kv := resp.Kvs[0]
	st.modRev, st.stored = kv.ModRevision, kv.Value
	obj, err := s.decode(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	st.obj = obj
	return st, nil
}

// apply checks the preconditions on the state, applies tryUpdate and
// encodes the result.
func (st *updateState) apply(s *Store, key string, precond *Preconditions, ignoreNotFound bool, tryUpdate UpdateFunc) (runtime.Object, []byte, error) {
	current := st.obj
	if current == nil {
		if !ignoreNotFound {
			return nil, nil, &Error{Code: ErrCodeKeyNotFound, Key: key, Rev: st.rev}
		}
		current = s.newFunc()
	}
	if err := precond.Check(key, current); err != nil {
		return nil, nil, err
	}
	updated, err := tryUpdate(current)
	if err != nil {
		return nil, nil, err
	}
	data, err := s.encode(updated)
	if err != nil {
		return nil, nil, err
	}
	return updated, data, nil
}

// stamp gives an update that wrote nothing the state's resourceVersion.
func (st *updateState) stamp(updated runtime.Object) error {
	if st.modRev == 0 {
		return nil
	}
	return setResourceVersion(updated, st.modRev)
}

// putIfUnchanged writes data at key if its mod revision is still modRev
// (0: it does not exist), stamping updated with the new revision; if it
// changed, done is false and next is the key as it is now.
func (s *Store) putIfUnchanged(ctx context.Context, key string, modRev int64, data []byte, opts WriteOptions, updated runtime.Object) (done bool, next *clientv3.GetResponse, err error) {
	putOpts, err := s.putOptions(ctx, opts)
	if err != nil {
		return false, nil, err
	}
	start := time.Now()
	txn, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", modRev)).
		Then(clientv3.OpPut(key, string(data), putOpts...)).
		Else(clientv3.OpGet(key)).
		Commit()
	s.observe("update", start, err)
	if err != nil {
		return false, nil, err
	}
	if !txn.Succeeded {
		return false, (*clientv3.GetResponse)(txn.Responses[0].GetResponseRange()), nil
	}
	if err := setResourceVersion(updated, txn.Header.Revision); err != nil {
		return false, nil, err
	}
	op := "update"
	if modRev == 0 {
		op = "create"
	}
	s.wrote(ctx, Write{Op: op, Key: key, Revision: txn.Header.Revision, PrevRevision: modRev, Value: data, Object: updated})
	return true, nil, nil
}
