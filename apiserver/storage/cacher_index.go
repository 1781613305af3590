package storage

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// WatchIndex names the field the watch cache indexes its watchers by, as
// kube-apiserver's cacher has IndexerFuncs and a trigger for pods'
// spec.nodeName (pkg/registry/core/pod/storage: NodeNameTriggerFunc): a
// watcher whose field selector pins the field to a value (a kubelet's
// spec.nodeName=<node>) is handed only the changes whose new or old
// object has that value; the cache works out the value of each change
// once, and the other watchers of that index cost it nothing.
type WatchIndex struct {
	// Field is the selectable field ("spec.nodeName").
	Field string
	// Value returns obj's value of the field. It must not modify obj.
	Value func(obj runtime.Object) string
}

// indexProgressEvery is how often at most the cache tells indexed
// watchers the revision it has reached: they do not see the changes of
// other values, and a bookmark may promise only what a watcher knows
// (upstream's cacher sends bookmarks to every watcher, about once a
// minute, for the same reason).
const indexProgressEvery = time.Second

// indexValue returns the value pred pins the index's field to, if any.
func (x *WatchIndex) indexValue(pred Predicate) (string, bool) {
	if x == nil || pred.Field == nil {
		return "", false
	}
	return pred.Field.RequiresExactMatch(x.Field)
}

// addSubLocked records sub among the watchers to feed. Called with c.mu
// held.
func (c *watchCache) addSubLocked(sub *subscription) {
	c.subs[sub] = struct{}{}
	if !sub.indexed {
		c.unindexed = nil // rebuilt by the next change
		return
	}
	if c.byValue == nil {
		c.byValue = map[string]map[*subscription]struct{}{}
	}
	set := c.byValue[sub.indexValue]
	if set == nil {
		set = map[*subscription]struct{}{}
		c.byValue[sub.indexValue] = set
	}
	set[sub] = struct{}{}
}

// removeSubLocked forgets sub. Called with c.mu held.
func (c *watchCache) removeSubLocked(sub *subscription) {
	if _, ok := c.subs[sub]; !ok {
		return
	}
	delete(c.subs, sub)
	if !sub.indexed {
		c.unindexed = nil
		return
	}
	set := c.byValue[sub.indexValue]
	delete(set, sub)
	if len(set) == 0 {
		delete(c.byValue, sub.indexValue)
	}
}

// interestedLocked returns the watchers to hand ch to: every watcher not
// indexed, and the indexed ones whose value is that of ch's new or old
// object. The slice is the cache's own until a watcher comes or goes:
// the caller must not modify it. Called with c.mu held.
func (c *watchCache) interestedLocked(ch *change) []*subscription {
	if c.unindexed == nil {
		c.unindexed = make([]*subscription, 0, len(c.subs))
		for sub := range c.subs {
			if !sub.indexed {
				c.unindexed = append(c.unindexed, sub)
			}
		}
	}
	subs := c.unindexed
	if len(c.byValue) == 0 {
		return subs
	}
	subs = subs[:len(subs):len(subs)] // appending copies
	var seen string
	for i, obj := range []runtime.Object{ch.cur, ch.prev} {
		if obj == nil {
			continue
		}
		v := c.s.index.Value(obj)
		if i == 1 && ch.cur != nil && v == seen {
			break
		}
		seen = v
		for sub := range c.byValue[v] {
			subs = append(subs, sub)
		}
	}
	return subs
}

// progressIndexed tells the indexed watchers, at most every
// indexProgressEvery, the revision the cache reached, after the changes
// up to it were handed out: what they were not handed was not theirs.
// A watcher with no room skips it. Called from the cache's goroutine.
func (c *watchCache) progressIndexed(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byValue) == 0 || now.Sub(c.indexProgressAt) < indexProgressEvery {
		return
	}
	c.indexProgressAt = now
	it := item{rev: c.rev}
	for _, set := range c.byValue {
		for sub := range set {
			sub.offer(it)
		}
	}
}
