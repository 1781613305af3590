package controllers

import (
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"
)

// evictionRateLimiterBurst is the burst of every zone's tainting rate
// limiter (upstream's EvictionRateLimiterBurst).
const evictionRateLimiterBurst = 1

// taintingQueue holds the nodes waiting for a NoExecute taint in one
// zone, as upstream's RateLimitedTimedQueue: a node is in it at most once
// (added again only after remove), the earliest processAt first, and try
// takes at most as many nodes as the zone's rate limiter lets through.
// It is safe for concurrent use.
type taintingQueue struct {
	mu      sync.Mutex
	entries []taintingEntry     // by processAt
	members map[string]struct{} // added and not removed (tried ones too)
	limiter flowcontrol.PassiveRateLimiter
	qps     float32
}

type taintingEntry struct {
	node      string
	uid       string
	processAt time.Time
}

// neverAccept is the limiter of a zone whose evictions are stopped.
type neverAccept struct{}

func (neverAccept) TryAccept() bool { return false }
func (neverAccept) Stop()           {}
func (neverAccept) QPS() float32    { return 0 }

func newTaintingQueue(qps float32) *taintingQueue {
	q := &taintingQueue{members: map[string]struct{}{}}
	q.limiter, q.qps = newEvictionLimiter(qps), qps
	return q
}

func newEvictionLimiter(qps float32) flowcontrol.PassiveRateLimiter {
	if qps <= 0 {
		return neverAccept{}
	}
	return flowcontrol.NewTokenBucketPassiveRateLimiter(qps, evictionRateLimiterBurst)
}

// add queues node unless it is a member already; it reports whether it
// was added.
func (q *taintingQueue) add(node, uid string, now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.members[node]; ok {
		return false
	}
	q.members[node] = struct{}{}
	q.insert(taintingEntry{node: node, uid: uid, processAt: now})
	return true
}

func (q *taintingQueue) insert(e taintingEntry) {
	i, _ := slices.BinarySearchFunc(q.entries, e, func(a, b taintingEntry) int { return a.processAt.Compare(b.processAt) })
	q.entries = slices.Insert(q.entries, i, e)
}

// remove forgets node; it reports whether it was a member.
func (q *taintingQueue) remove(node string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.members[node]; !ok {
		return false
	}
	delete(q.members, node)
	q.entries = slices.DeleteFunc(q.entries, func(e taintingEntry) bool { return e.node == node })
	return true
}

// try hands the nodes due at now to fn, earliest first, while the rate
// limiter accepts. A node fn handled (true) leaves the queue but stays a
// member until remove, so it is not queued again while it stays
// unhealthy; one it could not handle is tried again after retry.
func (q *taintingQueue) try(now time.Time, fn func(node, uid string) (done bool, retry time.Duration)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.entries) > 0 {
		head := q.entries[0]
		if !q.limiter.TryAccept() || now.Before(head.processAt) {
			return
		}
		q.entries = q.entries[1:]
		q.mu.Unlock()
		done, retry := fn(head.node, head.uid)
		q.mu.Lock()
		if _, member := q.members[head.node]; !done && member {
			head.processAt = now.Add(retry + 1)
			q.insert(head)
		}
	}
}

// swapLimiter makes the zone's rate qps (0 stops it), keeping a token
// already spent spent, as upstream's SwapLimiter.
func (q *taintingQueue) swapLimiter(qps float32) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.qps == qps {
		return
	}
	next := newEvictionLimiter(qps)
	if qps > 0 && !q.limiter.TryAccept() {
		next.TryAccept()
	}
	q.limiter, q.qps = next, qps
}
