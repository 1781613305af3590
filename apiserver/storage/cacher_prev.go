package storage

import (
	"sync"
	"weak"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
)

// latestStates remembers, for each key, the newest change the watch
// cache decoded, so that the next change of the key takes its previous
// state from it instead of decoding etcd's prevKV again: the same object,
// shared (kube-apiserver's watch cache takes the previous object from its
// store); and so that an update can start from it (latest) instead of
// reading the key from etcd. It holds the changes weakly: a change the
// history has evicted, and no watcher holds, is not kept alive for this;
// its key then decodes prevKV, and an update reads etcd, as before. A
// delete forgets its key. The cache's goroutine writes it; safe for
// concurrent use.
type latestStates struct {
	mu   sync.Mutex
	keys map[string]latestState
}

type latestState struct {
	rev int64
	ch  weak.Pointer[change]
}

func newLatestStates() *latestStates { return &latestStates{keys: map[string]latestState{}} }

// prevOf is the decoded state etcd's event ev names as the one before it
// (its prevKV, by revision), or nil when the cache no longer has it.
func (l *latestStates) prevOf(ev *clientv3.Event) runtime.Object {
	if ev.PrevKv == nil {
		return nil
	}
	obj, rev := l.latest(string(ev.Kv.Key))
	if obj == nil || rev != ev.PrevKv.ModRevision {
		return nil
	}
	return obj
}

// latest is the newest state of key the cache has decoded and its
// revision, or nil; it must not be modified.
func (l *latestStates) latest(key string) (runtime.Object, int64) {
	if l == nil {
		return nil, 0
	}
	l.mu.Lock()
	st, ok := l.keys[key]
	l.mu.Unlock()
	if !ok {
		return nil, 0
	}
	if ch := st.ch.Value(); ch != nil && ch.cur != nil {
		return ch.cur, st.rev
	}
	return nil, 0
}

// remember records ch as its key's newest change.
func (l *latestStates) remember(ch *change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ch.deleted {
		delete(l.keys, ch.key)
		return
	}
	l.keys[ch.key] = latestState{rev: ch.rev, ch: weak.Make(ch)}
}
