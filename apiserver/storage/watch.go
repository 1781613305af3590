package storage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// watchBuffer is the number of events a watcher served by etcd holds for
// a slow reader. When it is full the watcher stops reading from its
// source and leaves the rest to etcd's client: a slow reader delays only
// its own watch and loses nothing. A watcher served by the watch cache
// has two buffers instead, the cache's changes (up to watchChannelSize,
// growing from 10 as needed: feedQueue) and its events (10, or fewer if
// watchChannelSize is), and is dropped when both are full and the cache's
// dispatch budget runs out: its stream ends and the client watches again.
const watchBuffer = 100

// fastReceives is how many changes in a row a watcher takes without
// looking at its other channels (its context, the bookmark ticker).
const fastReceives = 16

// Watch streams the changes under key (a prefix ending in "/") or to the one
// object at key, filtered by opts.Predicate:
//
//   - ResourceVersion N > 0: the changes after revision N.
//   - ResourceVersion "" or "0" (and SendInitialEvents unset): first the
//     current objects as ADDED events, then the changes after them.
//   - SendInitialEvents=true: the current objects as ADDED events (the
//     state at N or newer), then, if AllowWatchBookmarks, a BOOKMARK
//     annotated k8s.io/initial-events-end, then the changes.
//   - SendInitialEvents=false with no ResourceVersion: the changes from now.
//
// An object that stops matching the selectors arrives as DELETED, one that
// starts matching as ADDED. With AllowWatchBookmarks, etcd's progress
// BOOKMARK events carrying the revision reached arrive every bookmark
// interval in which the watch sent nothing else.
// While the watch cache runs it serves the changes: an N older than its
// history ends the stream with an ERROR event holding a 410 Expired
// Status ("too old resource version"), and while it (re)starts Watch
// returns a 429. Without it, etcd serves them, and a compacted N ends the
// stream with 410 Expired. The watch ends when ctx is done or Stop is
// called.
func (s *Store) Watch(ctx context.Context, key string, opts ListOptions) (watch.Interface, error) {
	rv, err := ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if err := s.cache.checkReady(); err != nil {
		return nil, err
	}
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	initial := sendInitial || (opts.SendInitialEvents == nil && rv == 0)
	startRev := rv
	if initial && rv > 0 {
		current, err := s.CurrentRevision(ctx)
		if err != nil {
			return nil, err
		}
		if rv > current {
			return nil, tooLargeResourceVersion(rv, current)
		}
	}
	if !initial && rv == 0 {
		if startRev, err = s.CurrentRevision(ctx); err != nil {
			return nil, err
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{
		s:          s,
		parent:     parent,
		ctx:        ctx,
		cancel:     cancel,
		key:        key,
		recursive:  strings.HasSuffix(key, "/"),
		pred:       opts.Predicate,
		bookmarks:  opts.AllowWatchBookmarks,
		endMarker:  sendInitial && opts.AllowWatchBookmarks,
		initial:    initial,
		startRev:   startRev,
		result:     make(chan Event, s.cache.channelSize(opts.Predicate)),
		done:       make(chan struct{}),
		stopped:    make(chan struct{}),
		acceptsAll: opts.Predicate.Empty(),
	}
	go w.run()
	return w, nil
}

type watcher struct {
	s          *Store
	parent     context.Context // the caller's
	ctx        context.Context
	cancel     context.CancelFunc
	key        string
	recursive  bool
	pred       Predicate
	acceptsAll bool
	bookmarks  bool
	endMarker  bool
	initial    bool
	startRev   int64

	result chan Event
	// plain is what ResultChan returns: result's events without their
	// encodings, relayed by a goroutine started on the first call.
	plain      chan watch.Event
	plainDone  chan struct{}
	plainStart sync.Once
	stopped    chan struct{} // closed by Stop
	// ended is closed when the watch cache stops feeding the watcher
	// (nil for a watch etcd serves); set by run before it sends.
	ended    <-chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// Events returns the events with their shared encodings; it is closed
// when the watch ends. Use it or ResultChan, not both.
func (w *watcher) Events() <-chan Event { return w.result }

// ResultChan returns the events; it is closed when the watch ends.
func (w *watcher) ResultChan() <-chan watch.Event {
	w.plainStart.Do(func() {
		w.plain, w.plainDone = make(chan watch.Event), make(chan struct{})
		go w.relay()
	})
	return w.plain
}

// relay hands result's events to plain until result is closed or the
// watch is stopped.
func (w *watcher) relay() {
	defer close(w.plainDone)
	defer close(w.plain)
	for ev := range w.result {
		select {
		case w.plain <- ev.Event:
		case <-w.stopped:
			return
		case <-w.parent.Done():
			return // nobody reads any more
		}
	}
}

// Stop ends the watch and waits for its goroutines to finish. Safe to
// call more than once and from any goroutine.
func (w *watcher) Stop() {
	w.stopOnce.Do(func() {
		w.cancel()
		close(w.stopped)
	})
	<-w.done
	w.plainStart.Do(func() {
		// Never read: a closed channel for a late ResultChan.
		w.plain, w.plainDone = make(chan watch.Event), make(chan struct{})
		close(w.plain)
		close(w.plainDone)
	})
	<-w.plainDone
}

func (w *watcher) run() {
	defer close(w.done)
	defer close(w.result)
	// Whatever ends the watch also ends its etcd watch (a cancelled
	// context is what releases it in etcd's client).
	defer w.cancel()
	if w.initial {
		if !w.sendInitialState() {
			return
		}
	}
	replay, items, ended, took, stop := w.s.changesAfter(w.ctx, w.key, w.startRev, w.bookmarks, w.pred, w.result, w.cancel)
	defer stop()
	w.ended = ended
	st := &followState{processed: w.startRev}
	for _, it := range replay {
		if !w.handle(st, it) {
			return
		}
	}
	w.follow(st, items, took)
}

// followState is what a watcher knows of the changes it has looked at.
type followState struct {
	// processed is the revision up to which every change under the key
	// has been looked at (sent, or hidden by the selectors): what a
	// BOOKMARK may promise.
	processed     int64
	sentSinceTick bool
}

// handle shows one item to the client; false ends the watch.
func (w *watcher) handle(st *followState, it item) bool {
	switch {
	case it.err != nil:
		w.sendError(it.err)
		return false
	case it.change == nil:
		st.processed = max(st.processed, it.rev)
		return true
	case it.change.rev <= w.startRev || !w.covers(it.change.key):
		return true
	}
	out, ok, err := w.transform(it)
	if err != nil {
		w.sendError(apierrors.NewInternalError(err))
		return false
	}
	st.processed = max(st.processed, it.change.rev)
	if !ok {
		return true
	}
	st.sentSinceTick = true
	return w.send(out)
}

// follow shows the items as they come, and a bookmark every bookmark
// interval in which it showed nothing else, until the watch ends. took
// is called after each item received.
func (w *watcher) follow(st *followState, items <-chan item, took func()) {
	var tick <-chan time.Time
	if w.bookmarks {
		t := time.NewTicker(w.s.bookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	take := func(it item, ok bool) bool {
		if !ok {
			return false
		}
		took()
		return !w.isEnded() && w.handle(st, it)
	}
	for fast := 0; ; fast++ {
		// A change already waiting is taken without a select of every
		// channel (the watch cache wakes a thousand watchers per change),
		// but not more than fastReceives in a row, so that the others
		// get their turn.
		if fast < fastReceives {
			select {
			case it, ok := <-items:
				if !take(it, ok) {
					return
				}
				continue
			default:
			}
		}
		fast = 0
		select {
		case <-w.ctx.Done():
			// Stopped, or the watch cache dropped the watcher (its
			// buffers were full) or stopped, which cancels w.ctx too
			// (feed.end): the changes still in its buffer are
			// discarded, the events in result reach the client, then
			// the stream ends and the client watches again.
			return
		case <-tick:
			if !st.sentSinceTick && !w.sendBookmark(st.processed, false) {
				return
			}
			st.sentSinceTick = false
		case it, ok := <-items:
			if !take(it, ok) {
				return
			}
		}
	}
}

// covers reports whether the watch is about key.
func (w *watcher) covers(key string) bool {
	if w.recursive {
		return strings.HasPrefix(key, w.key)
	}
	return key == w.key
}

// sendInitialState sends the current objects as ADDED events and records
// the revision they were read at.
func (w *watcher) sendInitialState() bool {
	var opts []clientv3.OpOption
	if w.recursive {
		opts = append(opts, clientv3.WithPrefix())
	}
	resp, err := w.s.client.Get(w.ctx, w.key, opts...)
	if err != nil {
		if w.ctx.Err() == nil {
			w.sendError(watchError(err))
		}
		return false
	}
	for _, kv := range resp.Kvs {
		obj, err := w.s.decode(kv.Value, kv.ModRevision)
		if err != nil {
			w.sendError(apierrors.NewInternalError(err))
			return false
		}
		if ok, err := w.pred.Matches(obj); err != nil || !ok {
			continue
		}
		if !w.send(Event{Event: watch.Event{Type: watch.Added, Object: obj}}) {
			return false
		}
	}
	w.startRev = resp.Header.Revision
	if w.endMarker {
		return w.sendBookmark(w.startRev, true)
	}
	return true
}

// transform turns the change of an item into the event this watcher
// shows, false when the selectors hide it; with the shared encodings of
// that event when the watch cache dispatched the change to the watcher
// (not when it replays it from its history). Values, not pointers: a
// thousand watchers of a change make a thousand events, none of which
// need the heap.
func (w *watcher) transform(it item) (Event, bool, error) {
	ev, ok, err := w.eventOf(it.change)
	if !ok || err != nil {
		return Event{}, false, err
	}
	out := Event{Event: ev}
	if it.encodings != nil {
		out.Encodings = it.encodings.of(ev.Type)
	}
	return out, true, nil
}

// eventOf is the API event this watcher makes of a change, false if none.
func (w *watcher) eventOf(c *change) (watch.Event, bool, error) {
	switch {
	case w.acceptsAll:
		switch {
		case c.deleted:
			return goneEvent(c)
		case c.created:
			return watch.Event{Type: watch.Added, Object: c.cur}, true, nil
		}
		return watch.Event{Type: watch.Modified, Object: c.cur}, true, nil
	case c.deleted:
		// The last state, stamped with the revision of its deletion.
		if ok, err := w.pred.Matches(c.prev); err != nil || !ok {
			return watch.Event{}, false, err
		}
		return goneEvent(c)
	case c.created:
		if ok, err := w.pred.Matches(c.cur); err != nil || !ok {
			return watch.Event{}, false, err
		}
		return watch.Event{Type: watch.Added, Object: c.cur}, true, nil
	}
	curOK, err := w.pred.Matches(c.cur)
	if err != nil {
		return watch.Event{}, false, err
	}
	oldOK := false
	if c.prev != nil {
		if oldOK, err = w.pred.Matches(c.prev); err != nil {
			return watch.Event{}, false, err
		}
	}
	switch {
	case curOK && oldOK:
		return watch.Event{Type: watch.Modified, Object: c.cur}, true, nil
	case curOK:
		return watch.Event{Type: watch.Added, Object: c.cur}, true, nil
	case oldOK:
		return goneEvent(c)
	}
	return watch.Event{}, false, nil
}

// goneEvent is the DELETED event of c's previous state.
func goneEvent(c *change) (watch.Event, bool, error) {
	obj, err := c.goneObject()
	if err != nil {
		return watch.Event{}, false, err
	}
	return watch.Event{Type: watch.Deleted, Object: obj}, true, nil
}

func (w *watcher) send(ev Event) bool {
	if w.ctx.Err() != nil || w.isEnded() {
		return false // stopped: nothing more reaches the reader
	}
	select {
	case w.result <- ev: // room, or the reader waiting: no need to wait
		return true
	default:
	}
	select {
	case w.result <- ev:
		return true
	case <-w.ctx.Done():
		return false
	case <-w.ended:
		return false
	}
}

// isEnded reports whether the watch cache stopped feeding w.
func (w *watcher) isEnded() bool {
	select {
	case <-w.ended:
		return true
	default:
		return false
	}
}

// sendBookmark sends an empty object carrying only rev, annotated as the
// end of the initial events when endOfInitial is set.
func (w *watcher) sendBookmark(rev int64, endOfInitial bool) bool {
	obj := w.s.newFunc()
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if err := setResourceVersion(obj, rev); err != nil {
		return false
	}
	if endOfInitial {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return w.send(Event{Event: watch.Event{Type: watch.Bookmark, Object: obj}})
}

func (w *watcher) sendError(err error) {
	var status *apierrors.StatusError
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	st := status.Status()
	w.send(Event{Event: watch.Event{Type: watch.Error, Object: &st}})
}

// watchError maps etcd's watch failures to the API errors kube-apiserver
// sends in an ERROR event.
func watchError(err error) error {
	if errors.Is(err, rpctypes.ErrCompacted) {
		return apierrors.NewResourceExpired("The resourceVersion for the provided watch is too old.")
	}
	return apierrors.NewInternalError(err)
}
