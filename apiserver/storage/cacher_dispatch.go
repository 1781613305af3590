package storage

import (
	"time"

	"k8s.io/klog/v2"
)

// record appends changes to the history and hands each to every
// subscriber, one change after the other.
func (c *watchCache) record(changes []*change) {
	for _, ch := range changes {
		c.dispatch(ch, c.add(ch))
	}
	c.progressIndexed(time.Now())
}

// add records ch in the history and returns the subscribers to hand it
// to (not to be modified): all but the indexed ones of other values. A
// watcher subscribing after this finds ch in its replay instead.
func (c *watchCache) add(ch *change) []*subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.history.add(ch)
	c.rev = max(c.rev, ch.rev)
	return c.interestedLocked(ch)
}

// dispatch hands ch to subs as kube-apiserver's cacher dispatches an
// event (dispatchEvent): first to every watcher with room in its buffer,
// without waiting; then, if some had none, it takes the whole dispatch
// budget (at most 100 ms) and waits for those, one after the other, as
// long as the budget lasts; a watcher still full when it is spent gets
// one more try and is then terminated. Every watcher of the resource
// waits meanwhile: that is why the wait is bounded. The time not used
// goes back to the budget. Called from the cache's goroutine, without
// c.mu (a watcher may unsubscribe meanwhile).
func (c *watchCache) dispatch(ch *change, subs []*subscription) {
	it := item{change: ch, encodings: &eventEncodings{}}
	var blocked []*subscription
	for _, sub := range subs {
		if !sub.offer(it) {
			blocked = append(blocked, sub)
		}
	}
	if len(blocked) == 0 {
		return
	}
	start := time.Now()
	budget := c.budget.take()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	spent := false
	for _, sub := range blocked {
		if !spent {
			queued, ended := sub.wait(it, timer.C)
			if queued || ended {
				continue
			}
			spent = true
		}
		if !sub.offer(it) {
			c.terminate(sub, ch.rev, time.Since(start))
		}
	}
	c.budget.give(budget - time.Since(start))
}

// wait offers it to sub each time its watcher takes an item, until it is
// queued, the feed has ended, or spent fires.
func (sub *subscription) wait(it item, spent <-chan time.Time) (queued, ended bool) {
	for !sub.offer(it) {
		select {
		case <-sub.q.room:
		case <-sub.ended:
			return false, true
		case <-spent:
			return false, false
		}
	}
	return true, false
}

// offer puts it in sub's buffer if there is room.
func (sub *subscription) offer(it item) bool {
	if !sub.q.offer(it) {
		return false
	}
	if it.change != nil {
		sub.lastQueued = it.change.rev
	}
	return true
}

// terminate drops a watcher whose buffer stayed full: its stream ends
// once its reader has read the events already made (the changes in its
// buffer are discarded), and the client watches again from the last
// resourceVersion it read. It logs why, as kube-apiserver does, and tells
// the watcher's observer (WithWatcherTerminated) the figures. kubesim
// serves no /metrics: there is no apiserver_terminated_watchers_total to
// count it in.
func (c *watchCache) terminate(sub *subscription, gaveUpAt int64, waited time.Duration) {
	t := WatcherTerminated{
		Key: sub.key, BufferSize: sub.q.limit, Queued: sub.q.len(),
		ResultSize: cap(sub.result), ResultQueued: len(sub.result),
		LastQueued: sub.lastQueued, GaveUpAt: gaveUpAt, Waited: waited, Time: time.Now(),
	}
	c.mu.Lock()
	dropped := c.drop(sub)
	c.mu.Unlock()
	if !dropped {
		return // it went away meanwhile
	}
	klog.InfoS("Forcing watcher close due to unresponsiveness", "key", t.Key,
		"len(input)", t.Queued, "cap(input)", t.BufferSize, "len(result)", t.ResultQueued, "cap(result)", t.ResultSize,
		"lastQueued", t.LastQueued, "gaveUpAt", t.GaveUpAt, "waited", t.Waited)
	if sub.onTerminated != nil {
		sub.onTerminated(t)
	}
}
