package apiserver

import (
	"sort"
	"sync"

	"github.com/kubesim/kubesim/internal/flow"
)

// Sizes of the write log.
const (
	// writeLogSize is how many of its most recent etcd writes the server
	// remembers.
	writeLogSize = 4096
	// maxBetween is how many writes between two writes of an object its
	// evidence lists; the others are counted (flow.EtcdWrite.Between).
	maxBetween = 16
)

// writeLog remembers the most recent writes the server made to etcd
// (revision, op, key, who asked), so that the evidence of a pod's write
// can say which keys took the revisions since its previous one. Safe for
// concurrent use; the zero value is ready.
type writeLog struct {
	mu   sync.Mutex
	ring [writeLogSize]flow.OtherWrite
	n    int // writes added so far
}

// add notes a write. Writes arrive about in revision order (concurrent
// ones may swap); between sorts what it returns.
func (l *writeLog) add(w flow.OtherWrite) {
	l.mu.Lock()
	l.ring[l.n%writeLogSize] = w
	l.n++
	l.mu.Unlock()
}

// between returns the remembered writes with a revision strictly between
// after and before, oldest first, at most maxBetween of them; how many
// more it remembers; and how many revisions in between it cannot
// account for.
func (l *writeLog) between(after, before int64) (writes []flow.OtherWrite, more, elsewhere int64) {
	gap := before - after - 1
	if after <= 0 || gap <= 0 {
		return nil, 0, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var found int64
	for i := max(0, l.n-writeLogSize); i < l.n; i++ {
		w := l.ring[i%writeLogSize]
		if w.Revision <= after || w.Revision >= before {
			continue
		}
		found++
		if len(writes) < maxBetween {
			writes = append(writes, w)
		}
	}
	sort.Slice(writes, func(i, j int) bool { return writes[i].Revision < writes[j].Revision })
	return writes, found - int64(len(writes)), max(gap-found, 0)
}
