package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// change is one etcd change, decoded. Its objects are shared by every
// watcher that sees them and must not be modified. They keep the
// apiVersion and kind they were stored with, so that encoding them for a
// client (runtime.WithVersionEncoder) has nothing to set on them.
type change struct {
	key     string
	rev     int64
	created bool
	deleted bool
	// cur is the new state (nil for a delete); prev the one before, with
	// its own resourceVersion: often the very object that was the
	// previous change's cur (latestStates), so neither may be modified.
	cur, prev runtime.Object
	// prevOwned: prev was decoded for this change alone.
	prevOwned bool
	// gone is prev stamped with this change's revision, the object of a
	// DELETED event (goneObject), made once on first use.
	goneOnce sync.Once
	gone     runtime.Object
	goneErr  error
}

// item is what a watcher reads from its source: a change, a revision
// reached (progress), or an error that ends the watch. A change the
// watch cache dispatches carries the encodings of the events its
// watchers make of it, shared by all of them; they are dropped with the
// item once every watcher has taken it, so that the history keeps the
// decoded change and not its frames, as kube-apiserver's cacher caches a
// serialization only while dispatching the event (dispatchEvent,
// setCachingObjects). A change replayed from the history, or read from
// etcd, has none: each watcher encodes it.
type item struct {
	change    *change
	encodings *eventEncodings
	rev       int64
	err       error
}

// decodeChange decodes an etcd event; cur, if not nil, is the new state
// already decoded (writtenObjects), prev, if not nil, the previous state
// already decoded (latestStates: the object of the key's previous change),
// used when it is the state etcd's event says came before.
func (s *Store) decodeChange(ev *clientv3.Event, cur, prev runtime.Object) (*change, error) {
	rev := ev.Kv.ModRevision
	c := &change{key: string(ev.Kv.Key), rev: rev, created: ev.IsCreate(), deleted: ev.Type == mvccpb.DELETE, cur: cur, prev: prev}
	var err error
	if !c.deleted && c.cur == nil {
		if c.cur, err = s.decode(ev.Kv.Value, rev); err != nil {
			return nil, err
		}
	}
	switch {
	case ev.PrevKv != nil && c.prev == nil:
		if c.prev, err = s.decode(ev.PrevKv.Value, ev.PrevKv.ModRevision); err != nil {
			return nil, err
		}
		c.prevOwned = true
	case ev.PrevKv == nil && c.deleted:
		return nil, fmt.Errorf("delete of %s without its previous value", ev.Kv.Key)
	}
	return c, nil
}

// goneObject is the object of a DELETED event of this change: the
// previous state stamped with the change's revision (for a delete, the
// revision of the deletion; for an update that leaves a watcher's
// selectors, the update's), as kube-apiserver's cache watcher stamps a
// copy of the previous object. Made once, shared by every watcher; a
// copy only when prev is shared with the change before.
func (c *change) goneObject() (runtime.Object, error) {
	c.goneOnce.Do(func() {
		obj := c.prev
		if !c.prevOwned {
			obj = obj.DeepCopyObject()
		}
		c.gone, c.goneErr = obj, setResourceVersion(obj, c.rev)
	})
	return c.gone, c.goneErr
}

// changesAfter returns the changes under the store's prefix with a
// revision above after, in order: first replay (already known), then
// what items delivers. They come from the watch cache while it runs, as
// on kube-apiserver: a revision older than the cache's history gives one
// 410 Expired item ("too old resource version"), whether or not etcd
// still has that history. Without a running cache they come from a watch
// of its own on etcd, where a compacted revision gives 410 too. ended is
// closed when the cache stops feeding the watcher (nil for etcd's feed,
// which closes items instead), and end called, which cancels the
// watcher's context: what items still holds is then discarded. result
// is the watcher's buffer of events, whose fill the cache reports if it
// gives up on the watcher. The watcher calls took after each item
// it receives from items. stop releases the source.
func (s *Store) changesAfter(ctx context.Context, key string, after int64, progress bool, pred Predicate, result chan Event, end func()) (replay []item, items <-chan item, ended <-chan struct{}, took, stop func()) {
	sub, err := s.cache.subscribe(after, pred, feed{key: key, result: result, end: end, onTerminated: onTerminated(ctx)})
	if err != nil {
		return []item{{err: err}}, nil, nil, func() {}, func() {}
	}
	if sub != nil {
		return sub.replay, sub.q.ch, sub.ended, sub.q.took, func() { s.cache.unsubscribe(sub) }
	}
	items, stop = s.etcdChanges(ctx, key, after, progress)
	return nil, items, nil, func() {}, stop
}

// etcdChanges watches key on etcd from after+1, decoding each change. The
// goroutine it starts ends when ctx is done; stop waits for it.
func (s *Store) etcdChanges(ctx context.Context, key string, after int64, progress bool) (<-chan item, func()) {
	opts := []clientv3.OpOption{clientv3.WithRev(after + 1), clientv3.WithPrevKV()}
	if len(key) > 0 && key[len(key)-1] == '/' {
		opts = append(opts, clientv3.WithPrefix())
	}
	if progress {
		opts = append(opts, clientv3.WithProgressNotify())
	}
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan item, watchBuffer)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		send := func(it item) bool {
			select {
			case out <- it:
				return true
			case <-ctx.Done():
				return false
			}
		}
		// As kube-apiserver's etcd watches, it asks the member to end the
		// watch with "etcdserver: no leader" once it has had no leader for
		// three election timeouts (rather than stay silent).
		for resp := range s.client.Watch(clientv3.WithRequireLeader(ctx), key, opts...) {
			if err := resp.Err(); err != nil {
				send(item{err: watchError(err)})
				return
			}
			if resp.IsProgressNotify() {
				if !send(item{rev: resp.Header.Revision}) {
					return
				}
				continue
			}
			for _, ev := range resp.Events {
				c, err := s.decodeChange(ev, nil, nil)
				if err != nil {
					send(item{err: apierrors.NewInternalError(err)})
					return
				}
				if !send(item{change: c}) {
					return
				}
			}
		}
		if ctx.Err() == nil {
			send(item{err: apierrors.NewInternalError(errors.New("watch channel closed by etcd"))})
		}
	}()
	return out, func() {
		cancel()
		<-done
	}
}

// watchCache keeps one etcd watch per resource and the recent changes,
// decoded once, and hands them to every watcher (as kube-apiserver's watch
// cache does): a hundred kubelets watching pods cost one etcd watch and
// one decoding per change, not a hundred. Its history (window) starts
// when it starts: a watcher from an older resourceVersion, or from one
// older than the oldest change still kept, gets 410 Expired. Each watcher
// has a buffer of up to watchChannelSize changes (feedQueue: it starts
// at 10 and grows as needed); one whose buffer stays full
// longer than the dispatch budget allows is dropped (see dispatch): its
// stream ends and the client watches again from its last
// resourceVersion. A watcher that pins the store's WatchIndex field is
// handed only the changes of its value (cacher_index.go). When etcd
// ends the cache's watch with "no leader" (kube-apiserver's watches, and
// the cache's, ask the member to, WithRequireLeader) the cache keeps its
// history and watchers for DefaultNoLeaderGrace, watching again from
// the revision it reached, as kube-apiserver's cacher retries; after
// that it stops like on any other error. Safe for
// concurrent use; the zero value is not running and serves nobody.
type watchCache struct {
	s         *Store
	windowCfg WindowConfig
	subBuffer int // the buffer's size when a test sets one, else watchChannelSize
	// noLeaderGrace is DefaultNoLeaderGrace unless a test sets it.
	noLeaderGrace time.Duration

	// budget is touched by the goroutine of run only.
	budget *dispatchBudget

	mu      sync.Mutex
	enabled bool // Run was called: watches wait for the cache, not etcd
	// noLeaderErrs counts the watches of etcd that ended with "no leader".
	noLeaderErrs int
	running      bool
	ready        chan struct{} // closed when running, remade when it stops
	history      *window
	rev          int64                      // revision reached
	subs         map[*subscription]struct{} // every watcher fed
	// unindexed is the watchers not indexed, as handed out for each
	// change (nil: to be rebuilt); byValue the indexed ones by the value
	// they watch.
	unindexed       []*subscription
	byValue         map[string]map[*subscription]struct{}
	indexProgressAt time.Time // the last progressIndexed
	// written are the Store's creates the cache expects to see.
	written writtenObjects
	// latest are the newest states of the keys while the cache follows
	// etcd (nil otherwise): read by every update, so not under mu.
	latest atomic.Pointer[latestStates]
}

// latestState is the newest state of key the running cache has decoded
// and its revision, or nil; it must not be modified.
func (c *watchCache) latestState(key string) (runtime.Object, int64) {
	return c.latest.Load().latest(key)
}

// subscription is one watcher's feed from the cache. Only the cache's
// goroutine offers to q; q is never closed: ended is, once, under the
// cache's mutex, when the cache stops feeding it.
type subscription struct {
	feed
	replay []item
	q      *feedQueue
	ended  chan struct{}
	closed bool // ended is closed (guarded by the cache's mutex)
	// lastQueued is the revision of the last change q took (the
	// cache's goroutine only).
	lastQueued int64
	// indexed: the watcher pins the store's WatchIndex field to
	// indexValue.
	indexed    bool
	indexValue string
}

// feed is what the cache knows of the watcher a subscription feeds, to
// report it if it gives up on it.
type feed struct {
	key    string
	result chan Event
	// end, if set, ends the watcher (cancels its context) when the
	// cache stops feeding it, besides closing the subscription's ended:
	// the watcher then waits on one channel fewer for each change.
	end          func()
	onTerminated func(WatcherTerminated)
}

// Run keeps the store's watch cache until ctx is done. Without it every
// watch watches etcd itself.
func (s *Store) Run(ctx context.Context) {
	s.cache.run(ctx)
}

func (c *watchCache) run(ctx context.Context) {
	if c.budget == nil {
		c.budget = newDispatchBudget(nil)
	}
	c.mu.Lock()
	c.enabled = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.enabled = false
		c.mu.Unlock()
	}()
	var noLeader noLeaderRetry
	resume := int64(0)
	for ctx.Err() == nil {
		err := c.follow(ctx, resume, &noLeader)
		resume = 0
		if rev, ok := c.keepThroughNoLeader(err, &noLeader); ok {
			resume = rev
		} else {
			c.stop(err)
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// follow watches the whole prefix and records every change until the
// watch fails or ctx is done: from the current revision, or, resume
// not 0, from the one after resume, the history and the watchers
// carrying on (after "no leader", see keepThroughNoLeader). The member
// ends the watch with "etcdserver: no leader" after three election
// timeouts without a leader, as it ends kube-apiserver's watches.
func (c *watchCache) follow(ctx context.Context, resume int64, noLeader *noLeaderRetry) error {
	// A watch from "now" is in step with etcd from its creation, which
	// says the revision it starts after. (A watch from an explicit
	// revision could be caught by a compaction before it catches up.)
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithProgressNotify(), clientv3.WithCreatedNotify()}
	if resume > 0 {
		opts = append(opts, clientv3.WithRev(resume+1))
	}
	wch := c.s.client.Watch(clientv3.WithRequireLeader(ctx), c.s.prefix, opts...)
	latest := newLatestStates()
	c.latest.Store(latest)
	defer c.latest.Store(nil)
	for resp := range wch {
		if err := resp.Err(); err != nil {
			return err
		}
		if resp.Created {
			noLeader.since = time.Time{} // the member has a leader
			if resume > 0 {
				continue
			}
			start := resp.Header.Revision
			c.mu.Lock()
			c.running, c.history, c.rev = true, newWindow(c.windowCfg, start), start
			c.written.resetLocked(true)
			if c.subs == nil {
				c.subs = map[*subscription]struct{}{}
			}
			close(c.readyLocked())
			c.mu.Unlock()
			continue
		}
		if resp.IsProgressNotify() {
			c.advance(resp.Header.Revision)
			continue
		}
		written := c.takeWritten(resp.Events)
		changes := make([]*change, 0, len(resp.Events))
		for i, ev := range resp.Events {
			ch, err := c.s.decodeChange(ev, written[i], latest.prevOf(ev))
			if err != nil {
				return err
			}
			latest.remember(ch)
			changes = append(changes, ch)
		}
		c.record(changes)
	}
	return ctx.Err()
}

// DefaultNoLeaderGrace is how long the watch cache keeps its watchers
// while etcd says it has no leader, watching again from the revision it
// reached: kube-apiserver's cacher retries its watch after such an
// error for 30 s (its reflector's MaxInternalErrorRetryDuration), as a
// leader is usually elected within a few election timeouts, rather than
// end every watch. After that it ends them, and new watches get 429
// until the cache starts again from a new list.
const DefaultNoLeaderGrace = 30 * time.Second

// noLeaderRetry is when the cache's watch first ended with "no leader"
// since it last had one (zero: it has one).
type noLeaderRetry struct{ since time.Time }

// keepThroughNoLeader reports whether the cache keeps its history and
// watchers after follow returned err, and the revision to watch again
// from: only for "no leader", while the cache runs, within the grace.
func (c *watchCache) keepThroughNoLeader(err error, noLeader *noLeaderRetry) (int64, bool) {
	if !errors.Is(err, rpctypes.ErrNoLeader) {
		noLeader.since = time.Time{}
		return 0, false
	}
	if noLeader.since.IsZero() {
		noLeader.since = time.Now()
	}
	grace := c.noLeaderGrace
	if grace == 0 {
		grace = DefaultNoLeaderGrace
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noLeaderErrs++
	if !c.running || time.Since(noLeader.since) >= grace {
		return 0, false
	}
	return c.rev, true
}

// advance notes a revision reached without changes under the prefix.
func (c *watchCache) advance(rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rev = max(c.rev, rev)
	for sub := range c.subs {
		sub.offer(item{rev: rev}) // if full, progress can wait for the next one
	}
}

// drop ends sub's feed and forgets it; false if it had ended already.
// Called with c.mu held.
func (c *watchCache) drop(sub *subscription) bool {
	c.removeSubLocked(sub)
	if sub.closed {
		return false
	}
	sub.closed = true
	close(sub.ended)
	if sub.end != nil {
		sub.end()
	}
	return true
}

// stop ends every subscription: the cache no longer knows what comes next.
func (c *watchCache) stop(error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		c.ready = nil // a new channel for the next start
	}
	c.running, c.history = false, nil
	c.written.resetLocked(false)
	for sub := range c.subs {
		c.drop(sub)
	}
}

// readyLocked returns the channel closed once the cache runs.
func (c *watchCache) readyLocked() chan struct{} {
	if c.ready == nil {
		c.ready = make(chan struct{})
	}
	return c.ready
}

// wait blocks until the cache runs or ctx is done.
func (c *watchCache) wait(ctx context.Context) error {
	c.mu.Lock()
	ready := c.readyLocked()
	c.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkReady is the 429 a watch gets at once while the cache (re)starts.
func (c *watchCache) checkReady() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.enabled && !c.running {
		return apierrors.NewTooManyRequests("storage is (re)initializing", 1)
	}
	return nil
}

// WaitForWatchCache blocks until the store's watch cache serves watchers
// (Run must be running), or ctx is done.
func (s *Store) WaitForWatchCache(ctx context.Context) error { return s.cache.wait(ctx) }

// subscribe returns a feed of the changes after rev; nil (and no error)
// when the cache is disabled (Run is not running: etcd serves); a 429
// while it (re)starts, as kube-apiserver's cacher answers; the 410
// Expired error when rev is older than its history.
func (c *watchCache) subscribe(after int64, pred Predicate, f feed) (*subscription, error) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		if c.enabled {
			return nil, apierrors.NewTooManyRequests("storage is (re)initializing", 1)
		}
		return nil, nil
	}
	kept, err := c.history.since(after)
	if err != nil {
		return nil, err
	}
	sub := &subscription{feed: f, q: newFeedQueue(c.channelSizeLocked(pred)), ended: make(chan struct{})}
	sub.indexValue, sub.indexed = c.s.index.indexValue(pred)
	for _, ch := range kept {
		sub.replay = append(sub.replay, item{change: ch})
	}
	if c.rev > after {
		sub.replay = append(sub.replay, item{rev: c.rev})
	}
	c.addSubLocked(sub)
	return sub, nil
}

// channelSize is the size of a new watcher's buffer of events:
// watchChannelSize while the cache runs, but at most initialFeedSize (the
// buffer of the cache's items before it grows as far as needed), and
// watchBuffer for a watch etcd serves.
func (c *watchCache) channelSize(pred Predicate) int {
	if c == nil {
		return watchBuffer
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return watchBuffer
	}
	return min(c.channelSizeLocked(pred), initialFeedSize)
}

// channelSizeLocked is watchChannelSize for the history as it is now and
// the watcher's selector (or the size a test set). Called with c.mu held,
// the cache running.
func (c *watchCache) channelSizeLocked(pred Predicate) int {
	if c.subBuffer > 0 {
		return c.subBuffer
	}
	_, indexed := c.s.index.indexValue(pred)
	return watchChannelSize(c.history.capacity, c.history.cfg.EventFreshDuration, c.s.index != nil, indexed)
}

func (c *watchCache) unsubscribe(sub *subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(sub)
}
