package flow

import (
	"sync"
	"sync/atomic"
)

// DefaultBuffer is the buffer of a subscription when none is given.
const DefaultBuffer = 1024

// Recorder fans events out to subscribers. Record never blocks: each
// subscriber has a bounded buffer, and an event that does not fit is
// dropped for that subscriber only and counted in its Dropped (a slow
// subscriber loses events, the system never waits for it). Every
// subscriber receives the events it keeps in the order they were
// recorded, numbered by Seq. The zero Recorder is not usable; use
// NewRecorder. A nil *Recorder ignores Record. Safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	seq  uint64
	subs map[*Subscription]struct{}
	// readers is len(subs), kept apart so that HasReaders takes no lock.
	readers atomic.Int32
	// of and instance are set for a recorder Stamped made: it records
	// into of, naming instance.
	of       *Recorder
	instance string
}

// NewRecorder returns a Recorder without subscribers.
func NewRecorder() *Recorder {
	return &Recorder{subs: map[*Subscription]struct{}{}}
}

// HasReaders reports whether anyone is subscribed now (false for a nil
// Recorder). It takes no lock and allocates nothing, so a component can
// ask it on every request and build an event's evidence only when the
// answer is true: an event recorded without readers reaches nobody. The
// answer may be stale by the time the event is recorded; an event built
// just before a reader subscribes may be missed, as one recorded just
// before Subscribe would be.
func (r *Recorder) HasReaders() bool {
	if r != nil && r.of != nil {
		return r.of.HasReaders()
	}
	return r != nil && r.readers.Load() > 0
}

// Stamped returns a recorder that records into r, setting the Instance
// of every event that names none to instance: what one of several
// instances of a component records with (a second API server's events
// name it), so that readers of r tell them apart. Subscribing to it is
// subscribing to r.
func (r *Recorder) Stamped(instance string) *Recorder {
	if r != nil && r.of != nil {
		r = r.of
	}
	return &Recorder{of: r, instance: instance}
}

// Record numbers e and delivers it to every current subscriber that has
// room for it.
func (r *Recorder) Record(e Event) {
	if r == nil {
		return
	}
	if r.of != nil {
		if e.Instance == "" {
			e.Instance = r.instance
		}
		r.of.Record(e)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e.Seq = r.seq
	for s := range r.subs {
		select {
		case s.ch <- e:
		default:
			s.dropped.Add(1)
		}
	}
}

// Subscribe returns a subscription receiving every event recorded from now
// on, buffered up to buffer events (DefaultBuffer if buffer <= 0). The
// caller must Close it.
func (r *Recorder) Subscribe(buffer int) *Subscription {
	if r.of != nil {
		return r.of.Subscribe(buffer)
	}
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	s := &Subscription{r: r, ch: make(chan Event, buffer)}
	r.mu.Lock()
	r.subs[s] = struct{}{}
	r.readers.Store(int32(len(r.subs)))
	r.mu.Unlock()
	return s
}

// Subscription is one subscriber's stream of events.
type Subscription struct {
	r       *Recorder
	ch      chan Event
	dropped atomic.Int64
	once    sync.Once
}

// Events returns the stream; it is closed by Close.
func (s *Subscription) Events() <-chan Event { return s.ch }

// Dropped returns how many events did not fit in the buffer.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// Close ends the subscription and closes its channel. Safe to call more
// than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.r.mu.Lock()
		delete(s.r.subs, s)
		s.r.readers.Store(int32(len(s.r.subs)))
		s.r.mu.Unlock()
		close(s.ch)
	})
}
