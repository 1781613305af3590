package controllers

import (
	"sync"
	"time"
)

// Action is one thing a controller did, with the evidence of why: the
// informer event that put the key on its workqueue, the key, what it
// saw against what it wanted, and the writes it made. kubesim shows
// these before a pod's first stage; upstream's controllers log the same
// facts (replicaset-controller's "Too few replicas" with need and
// creating, at verbosity 2).
type Action struct {
	Time time.Time
	// Controller is the controller's name ("replicaset-controller").
	Controller string
	// Trigger is the informer event that queued Key last, for example
	// "update ReplicaSet default/web-5d9c7c8f4b"; empty for a resync.
	Trigger string
	// Key is the workqueue key synced ("default/web-5d9c7c8f4b").
	Key string
	// Decision is what the controller saw and did, for example
	// "wanted 3, saw 2: creating 1".
	Decision string
	// Writes are the API calls made, one line each, for example
	// "POST pods default/web-5d9c7c8f4b-x7k2p → 201".
	Writes []string
}

// Observer receives the controllers' actions; it must not block.
type Observer func(Action)

// observe hands a to c.Observer, if any, stamped with the time.
func (c *Config) observe(a Action) {
	if c.Observer == nil {
		return
	}
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	c.Observer(a)
}

// triggers remembers, per workqueue key, the informer event that queued
// it last, so that the sync that follows can say why it ran.
type triggers struct {
	mu   sync.Mutex
	last map[string]string
}

// note records event as the reason key was queued.
func (t *triggers) note(key, event string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[string]string{}
	}
	t.last[key] = event
}

// take returns and forgets the event that queued key ("" if none did:
// a resync or a retry).
func (t *triggers) take(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.last[key]
	delete(t.last, key)
	return e
}
