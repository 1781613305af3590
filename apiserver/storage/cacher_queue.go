package storage

import "sync"

// initialFeedSize is the size a watcher's buffer of the cache's items
// starts at, whatever its limit: most watchers never hold more, and an
// idle one should cost little.
const initialFeedSize = minWatchChannelSize

// feedQueue is a watcher's buffer of the watch cache's items, holding up
// to limit of them (watchChannelSize): a channel of initialFeedSize the
// watcher receives from and, once that is full, an overflow behind it
// that grows as needed and is released when drained. kube-apiserver's
// cache watchers have a channel of the whole size from the start;
// kubesim's buffer holds as many, but allocates them only when a
// watcher falls behind. Only the cache's goroutine offers; only the
// watcher receives, and calls took after each item it receives.
type feedQueue struct {
	ch    chan item
	room  chan struct{} // a signal: the watcher took an item
	limit int

	mu       sync.Mutex
	overflow []item // after what ch holds, in order
}

func newFeedQueue(limit int) *feedQueue {
	return &feedQueue{ch: make(chan item, min(limit, initialFeedSize)), room: make(chan struct{}, 1), limit: limit}
}

// offer queues it if the queue holds fewer than limit items.
func (q *feedQueue) offer(it item) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.overflow) == 0 {
		select {
		case q.ch <- it:
			return true
		default:
		}
	}
	if len(q.ch)+len(q.overflow) >= q.limit {
		return false
	}
	q.overflow = append(q.overflow, it)
	return true
}

// took moves what the overflow holds into ch as far as it has room, and
// signals room. The watcher calls it after each receive from ch, so
// that ch is empty only when the overflow is.
func (q *feedQueue) took() {
	q.mu.Lock()
	n := 0
	for n < len(q.overflow) && len(q.ch) < cap(q.ch) {
		q.ch <- q.overflow[n] // never blocks: only the cache sends, under mu
		n++
	}
	if n == len(q.overflow) {
		q.overflow = nil
	} else if n > 0 {
		clear(q.overflow[:n]) // what was moved is the watcher's: let it go with it
		q.overflow = q.overflow[n:]
	}
	q.mu.Unlock()
	select {
	case q.room <- struct{}{}:
	default:
	}
}

// len is how many items the queue holds.
func (q *feedQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.ch) + len(q.overflow)
}
