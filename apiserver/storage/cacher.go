package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
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
	// cur is the new state (nil for a delete); prev the one before (for a
	// delete: the last state, stamped with the deletion's revision).
	cur, prev runtime.Object
}

// item is what a watcher reads from its source: a change, a revision
// reached (progress), or an error that ends the watch.
type item struct {
	change *change
	rev    int64
	err    error
}

// decodeChange decodes an etcd event.
func (s *Store) decodeChange(ev *clientv3.Event) (*change, error) {
	rev := ev.Kv.ModRevision
	c := &change{key: string(ev.Kv.Key), rev: rev, created: ev.IsCreate(), deleted: ev.Type == mvccpb.DELETE}
	var err error
	if !c.deleted {
		if c.cur, err = s.decode(ev.Kv.Value, rev); err != nil {
			return nil, err
		}
	}
	if ev.PrevKv != nil {
		if c.prev, err = s.decode(ev.PrevKv.Value, rev); err != nil {
			return nil, err
		}
	} else if c.deleted {
		return nil, fmt.Errorf("delete of %s without its previous value", ev.Kv.Key)
	}
	return c, nil
}

// changesAfter returns the changes under the store's prefix with a
// revision above after, in order: first replay (already known), then
// what items delivers. They come from the watch cache while it runs, as
// on kube-apiserver: a revision older than the cache's history gives one
// 410 Expired item ("too old resource version"), whether or not etcd
// still has that history. Without a running cache they come from a watch
// of its own on etcd, where a compacted revision gives 410 too. stop
// releases the source.
func (s *Store) changesAfter(ctx context.Context, key string, after int64, progress bool) (replay []item, items <-chan item, stop func()) {
	sub, err := s.cache.subscribe(after)
	if err != nil {
		return []item{{err: err}}, nil, func() {}
	}
	if sub != nil {
		return sub.replay, sub.ch, func() { s.cache.unsubscribe(sub) }
	}
	items, stop = s.etcdChanges(ctx, key, after, progress)
	return nil, items, stop
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
		for resp := range s.client.Watch(ctx, key, opts...) {
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
				c, err := s.decodeChange(ev)
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

// subscriptionBuffer is how many changes a watcher of the cache may fall
// behind before the cache drops it.
const subscriptionBuffer = 1024

// watchCache keeps one etcd watch per resource and the recent changes,
// decoded once, and hands them to every watcher (as kube-apiserver's watch
// cache does): a hundred kubelets watching pods cost one etcd watch and
// one decoding per change, not a hundred. Its history (window) starts
// when it starts: a watcher from an older resourceVersion, or from one
// older than the oldest change still kept, gets 410 Expired. A watcher
// that falls subscriptionBuffer changes behind is dropped: its stream
// ends and the client watches again from its last resourceVersion. Safe
// for concurrent use; the zero value is not running and serves nobody.
type watchCache struct {
	s         *Store
	windowCfg WindowConfig
	subBuffer int // subscriptionBuffer unless a test says otherwise

	mu      sync.Mutex
	enabled bool // Run was called: watches wait for the cache, not etcd
	running bool
	ready   chan struct{} // closed when running, remade when it stops
	history *window
	rev     int64 // revision reached
	subs    map[*subscription]struct{}
}

// subscription is one watcher's feed from the cache.
type subscription struct {
	replay []item
	ch     chan item
	closed bool
}

// Run keeps the store's watch cache until ctx is done. Without it every
// watch watches etcd itself.
func (s *Store) Run(ctx context.Context) {
	s.cache.run(ctx)
}

func (c *watchCache) run(ctx context.Context) {
	c.mu.Lock()
	c.enabled = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.enabled = false
		c.mu.Unlock()
	}()
	for ctx.Err() == nil {
		err := c.follow(ctx)
		c.stop(err)
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// follow watches the whole prefix from the current revision and records
// every change until the watch fails or ctx is done.
func (c *watchCache) follow(ctx context.Context) error {
	// A watch from "now" is in step with etcd from its creation, which
	// says the revision it starts after. (A watch from an explicit
	// revision could be caught by a compaction before it catches up.)
	wch := c.s.client.Watch(ctx, c.s.prefix, clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithProgressNotify(), clientv3.WithCreatedNotify())
	for resp := range wch {
		if err := resp.Err(); err != nil {
			return err
		}
		if resp.Created {
			start := resp.Header.Revision
			c.mu.Lock()
			c.running, c.history, c.rev = true, newWindow(c.windowCfg, start), start
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
		changes := make([]*change, 0, len(resp.Events))
		for _, ev := range resp.Events {
			ch, err := c.s.decodeChange(ev)
			if err != nil {
				return err
			}
			changes = append(changes, ch)
		}
		c.record(changes)
	}
	return ctx.Err()
}

// record appends changes and hands them to every subscriber.
func (c *watchCache) record(changes []*change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range changes {
		c.history.add(ch)
		c.rev = max(c.rev, ch.rev)
		for sub := range c.subs {
			c.deliver(sub, item{change: ch})
		}
	}
}

// advance notes a revision reached without changes under the prefix.
func (c *watchCache) advance(rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rev = max(c.rev, rev)
	for sub := range c.subs {
		select {
		case sub.ch <- item{rev: rev}:
		default: // progress can wait for the next one
		}
	}
}

// deliver gives sub an item, or drops sub if it is too far behind. Called
// with c.mu held.
func (c *watchCache) deliver(sub *subscription, it item) {
	select {
	case sub.ch <- it:
	default:
		c.drop(sub)
	}
}

func (c *watchCache) drop(sub *subscription) {
	if !sub.closed {
		sub.closed = true
		close(sub.ch)
	}
	delete(c.subs, sub)
}

// stop ends every subscription: the cache no longer knows what comes next.
func (c *watchCache) stop(error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		c.ready = nil // a new channel for the next start
	}
	c.running, c.history = false, nil
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
func (c *watchCache) subscribe(after int64) (*subscription, error) {
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
	buffer := c.subBuffer
	if buffer <= 0 {
		buffer = subscriptionBuffer
	}
	sub := &subscription{ch: make(chan item, buffer)}
	for _, ch := range kept {
		sub.replay = append(sub.replay, item{change: ch})
	}
	if c.rev > after {
		sub.replay = append(sub.replay, item{rev: c.rev})
	}
	c.subs[sub] = struct{}{}
	return sub, nil
}

func (c *watchCache) unsubscribe(sub *subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(sub)
}
