package storage

import (
	"weak"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
)

// latestStates remembers, for each key, the newest change the watch
// cache decoded, so that the next change of the key takes its previous
// state from it instead of decoding etcd's prevKV again: the same object,
// shared (kube-apiserver's watch cache takes the previous object from its
// store). It holds the changes weakly: a change the history has evicted,
// and no watcher holds, is not kept alive for this; its key then decodes
// prevKV as before. A delete forgets its key. Used by the cache's
// goroutine only.
type latestStates map[string]latestState

type latestState struct {
	rev int64
	ch  weak.Pointer[change]
}

// prevOf is the decoded state etcd's event ev names as the one before it
// (its prevKV, by revision), or nil when the cache no longer has it.
func (l latestStates) prevOf(ev *clientv3.Event) runtime.Object {
	if ev.PrevKv == nil {
		return nil
	}
	st, ok := l[string(ev.Kv.Key)]
	if !ok || st.rev != ev.PrevKv.ModRevision {
		return nil
	}
	if ch := st.ch.Value(); ch != nil && ch.cur != nil {
		return ch.cur
	}
	return nil
}

// remember records ch as its key's newest change.
func (l latestStates) remember(ch *change) {
	if ch.deleted {
		delete(l, ch.key)
		return
	}
	l[ch.key] = latestState{rev: ch.rev, ch: weak.Make(ch)}
}
