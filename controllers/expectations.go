package controllers

import (
	"sync"
	"time"
)

// DefaultExpectationsTimeout is how long a controller waits for the
// informer to show its creations and deletions before it syncs anyway
// (upstream's ExpectationsTimeout, at speed 1).
const DefaultExpectationsTimeout = 5 * time.Minute

// expectations records, per controller key, how many creations and which
// deletions a controller has asked the API for and not yet seen through
// its informer, as upstream's UIDTrackingControllerExpectations: until
// they are all seen (or the timeout passes) the controller does not count
// pods again, so that it neither creates nor deletes twice. Safe for
// concurrent use.
type expectations struct {
	mu      sync.Mutex
	timeout time.Duration
	now     func() time.Time
	byKey   map[string]*expectation
}

// expectation is one controller's outstanding work.
type expectation struct {
	adds      int
	deletions map[string]bool // pod keys asked to be deleted, not yet seen gone
	set       time.Time
}

func newExpectations(timeout time.Duration) *expectations {
	return &expectations{timeout: timeout, now: time.Now, byKey: map[string]*expectation{}}
}

// satisfied reports whether the controller of key may sync: nothing is
// outstanding, nothing was ever recorded, or the record has expired.
func (e *expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, ok := e.byKey[key]
	if !ok {
		return true
	}
	if exp.adds <= 0 && len(exp.deletions) == 0 {
		return true
	}
	return e.now().Sub(exp.set) > e.timeout
}

// expectCreations replaces key's record: adds creations to come.
func (e *expectations) expectCreations(key string, adds int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.byKey[key] = &expectation{adds: adds, deletions: map[string]bool{}, set: e.now()}
}

// expectDeletions replaces key's record: the pods named are to go.
func (e *expectations) expectDeletions(key string, podKeys []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp := &expectation{deletions: map[string]bool{}, set: e.now()}
	for _, k := range podKeys {
		exp.deletions[k] = true
	}
	e.byKey[key] = exp
}

// creationObserved counts one creation as seen (or as never to come).
func (e *expectations) creationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.byKey[key]; ok {
		exp.adds--
	}
}

// deletionObserved counts the deletion of podKey as seen, if key asked
// for it.
func (e *expectations) deletionObserved(key, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exp, ok := e.byKey[key]; ok {
		delete(exp.deletions, podKey)
	}
}

// forget drops key's record (its controller is gone).
func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byKey, key)
}
