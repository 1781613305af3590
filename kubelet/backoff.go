package kubelet

import "time"

// backOff is the kubelet's per-key exponential back-off (client-go's
// flowcontrol.Backoff without jitter), with the time passed in so that a
// pod machine stays a function of the clock it is given.
//
// next starts a key at initial and doubles it up to max; an entry last
// updated more than reset before the event is forgotten (the container
// ran, or the image was not needed, for that long).
type backOff struct {
	initial, max, reset time.Duration
	entries             map[string]*backOffEntry
}

type backOffEntry struct {
	d    time.Duration
	last time.Time // when next last ran
}

func newBackOff(initial, max, reset time.Duration) *backOff {
	return &backOff{initial: initial, max: max, reset: reset, entries: map[string]*backOffEntry{}}
}

func (b *backOff) expired(eventTime time.Time, e *backOffEntry) bool {
	return eventTime.Sub(e.last) > b.reset
}

// next records a new attempt for key at now, after an event (a
// container's exit, a failed pull) at eventTime.
func (b *backOff) next(key string, eventTime, now time.Time) {
	e := b.entries[key]
	if e == nil || b.expired(eventTime, e) {
		e = &backOffEntry{d: b.initial}
		b.entries[key] = e
	} else {
		e.d = min(2*e.d, b.max)
	}
	e.last = now
}

// get is key's current back-off.
func (b *backOff) get(key string) time.Duration {
	if e := b.entries[key]; e != nil {
		return e.d
	}
	return 0
}

// inBackOffSince reports whether, at now, key is still backing off from
// an event at eventTime (crash loops: the container's exit).
func (b *backOff) inBackOffSince(key string, eventTime, now time.Time) bool {
	e := b.entries[key]
	if e == nil || b.expired(eventTime, e) {
		return false
	}
	return now.Sub(eventTime) < e.d
}

// inBackOffSinceUpdate reports whether, at now, key is still backing off
// from its last attempt (image pulls), and until when.
func (b *backOff) inBackOffSinceUpdate(key string, now time.Time) (bool, time.Time) {
	e := b.entries[key]
	if e == nil || b.expired(now, e) {
		return false, time.Time{}
	}
	return now.Sub(e.last) < e.d, e.last.Add(e.d)
}
