package storage

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// Event is a watch event as the Store's watcher delivers it (Events),
// with the cache of its encodings when the event comes from the watch
// cache: every watcher that shows the same change with the same type
// gets the same Encodings, so the event is serialized once per encoding,
// not once per watcher (KEP-1152). Encodings is nil for the initial
// state, bookmarks, errors and a watch etcd serves: those are encoded by
// each watcher.
type Event struct {
	watch.Event
	Encodings *Encodings
}

// EventSource is what a Store's watch.Interface also is: Events delivers
// the same events as ResultChan, with their Encodings. A reader uses one
// of the two, never both.
type EventSource interface {
	watch.Interface
	Events() <-chan Event
}

// Encodings caches the serialized forms of one event, keyed by the name
// of the form (the encoding, and whatever else changes the bytes): each
// form is made by the first watcher that needs it, while the others
// wanting the same form wait, and then shared. kube-apiserver's cacher
// does this by wrapping the object (caching_object.go, cachingObject:
// runtime.CacheableObject, one result per serializer identifier, filled
// once); kubesim keeps the object as it is, for the readers that look at
// it, and caches beside it whole frames as the handler writes them. The
// bytes returned are shared and must not be modified. Safe for concurrent
// use; a nil *Encodings caches nothing.
type Encodings struct {
	mu    sync.Mutex
	forms []*encodedForm // few: one per encoding asked
}

type encodedForm struct {
	name string
	once sync.Once
	data []byte
	err  error
}

// Get returns the form named name, calling encode to make it if no
// watcher has yet.
func (e *Encodings) Get(name string, encode func() ([]byte, error)) ([]byte, error) {
	if e == nil {
		return encode()
	}
	f := e.form(name)
	f.once.Do(func() { f.data, f.err = encode() })
	return f.data, f.err
}

func (e *Encodings) form(name string) *encodedForm {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range e.forms {
		if f.name == name {
			return f
		}
	}
	f := &encodedForm{name: name}
	e.forms = append(e.forms, f)
	return f
}

// eventEncodings holds, for one change, the Encodings of each event a
// watcher may make of it: ADDED or MODIFIED of the new state, DELETED of
// the old one (a watcher's selectors decide which). They are made on
// first use.
type eventEncodings struct {
	mu                      sync.Mutex
	added, modified, delete *Encodings
}

// of returns the Encodings of the event typ about the change.
func (e *eventEncodings) of(typ watch.EventType) *Encodings {
	e.mu.Lock()
	defer e.mu.Unlock()
	slot := &e.modified
	switch typ {
	case watch.Added:
		slot = &e.added
	case watch.Deleted:
		slot = &e.delete
	}
	if *slot == nil {
		*slot = &Encodings{}
	}
	return *slot
}
