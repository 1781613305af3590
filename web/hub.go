package web

import (
	"encoding/json"
	"sync"
)

// maxLog bounds the messages one epoch's log keeps. A lesson sends a few
// thousand at most (deployment-rollout, the longest, about 9,000); past
// the bound the oldest go, and a page that joins late starts there.
const maxLog = 100000

// entry is one message of the log, encoded once for every page.
type entry struct {
	data    []byte
	teacher bool // only teachers' streams carry it (a tally)
}

// hub is the log of the current epoch's messages and the pages that
// follow it. Publishing never waits for a page: each page's stream reads
// the log at its own pace from its own position (a slow page falls
// behind; the log is its buffer) and is told by a signal (a channel of
// one) that there is more. Safe for concurrent use.
type hub struct {
	mu      sync.Mutex
	epoch   int
	first   int // index of log[0] in the epoch (> 0 once the bound dropped some)
	log     []entry
	signals map[chan struct{}]struct{}
}

func newHub() *hub {
	return &hub{signals: map[chan struct{}]struct{}{}}
}

// reset starts a new epoch with an empty log and returns its number.
func (h *hub) reset() int {
	h.mu.Lock()
	h.epoch++
	h.first, h.log = 0, nil
	e := h.epoch
	h.notifyLocked()
	h.mu.Unlock()
	return e
}

// publish appends msg to the log of epoch (dropped when that epoch is
// over: a message of a session already replaced).
func (h *hub) publish(epoch int, msg any, teacherOnly bool) {
	data, err := json.Marshal(msg)
	if err != nil {
		return // every message is a plain struct: not reached
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if epoch != h.epoch {
		return
	}
	h.log = append(h.log, entry{data: data, teacher: teacherOnly})
	if len(h.log) > maxLog {
		drop := len(h.log) - maxLog
		h.log = append([]entry(nil), h.log[drop:]...)
		h.first += drop
	}
	h.notifyLocked()
}

func (h *hub) notifyLocked() {
	for s := range h.signals {
		select {
		case s <- struct{}{}:
		default: // already signalled
		}
	}
}

// follow registers a page: its channel is signalled whenever the log
// changes. stop unregisters it.
func (h *hub) follow() (signal chan struct{}, stop func()) {
	s := make(chan struct{}, 1)
	h.mu.Lock()
	h.signals[s] = struct{}{}
	h.mu.Unlock()
	return s, func() {
		h.mu.Lock()
		delete(h.signals, s)
		h.mu.Unlock()
	}
}

// followers counts the pages following the log.
func (h *hub) followers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.signals)
}

// cursor is a page's position: the epoch it reads and the index (in that
// epoch) of the next message it has not had.
type cursor struct {
	epoch, next int
}

// read returns the messages after c (at most max), each with its index in
// the epoch, and the cursor after them. When the epoch changed, it
// starts at the new epoch's beginning (reset reports that); when the
// bound dropped messages c had not had, it starts at the oldest kept.
func (h *hub) read(c cursor, max int) (out []entry, first int, next cursor, reset bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.epoch != h.epoch {
		c, reset = cursor{epoch: h.epoch}, true
	}
	if c.next < h.first {
		c.next = h.first
	}
	i := c.next - h.first
	end := min(len(h.log), i+max)
	out = h.log[i:end:end]
	return out, c.next, cursor{epoch: c.epoch, next: c.next + len(out)}, reset
}

// current is the epoch now.
func (h *hub) current() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.epoch
}
