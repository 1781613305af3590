package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/kubesim/kubesim/hack/internal/kubesimweb"
)

// lesson is what the teacher's event stream said so far: the arrows, the
// steps, what the gate holds, whether the lesson ended. Safe for
// concurrent use; follow fills it.
type lesson struct {
	mu      sync.Mutex
	arrows  []kubesimweb.Arrow
	steps   map[string]kubesimweb.Step // the last message of each step, by id
	held    []kubesimweb.Held
	ended   bool
	err     error         // why the stream stopped, once it did
	changed chan struct{} // closed and replaced on every change
}

func newLesson() *lesson {
	return &lesson{steps: map[string]kubesimweb.Step{}, changed: make(chan struct{})}
}

// follow reads p's teacher stream into l until ctx ends or the stream
// does.
func (l *lesson) follow(ctx context.Context, p *kubesimweb.Play) {
	err := kubesimweb.Stream(ctx, http.DefaultClient, p.ViewerURL, p.Key, l.apply)
	l.update(func() {
		if err == nil {
			err = fmt.Errorf("the event stream ended")
		}
		l.err = err
	})
}

// apply takes one message in.
func (l *lesson) apply(m kubesimweb.Message) error {
	var err error
	l.update(func() {
		switch m.T {
		case "session":
			l.arrows, l.held, l.ended = nil, nil, false
			l.steps = map[string]kubesimweb.Step{}
		case "arrow":
			var a kubesimweb.Arrow
			if err = m.Decode(&a); err == nil {
				l.arrows = append(l.arrows, a)
			}
		case "hold":
			var h kubesimweb.Hold
			if err = m.Decode(&h); err == nil {
				l.held = h.Held
			}
		case "step":
			var s kubesimweb.Step
			if err = m.Decode(&s); err == nil {
				l.steps[s.ID] = s
			}
		case "end":
			l.ended = true
		}
	})
	return err
}

// update runs f under the lock and wakes the waiters.
func (l *lesson) update(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
	close(l.changed)
	l.changed = make(chan struct{})
}

// heldKey says what the gate holds, "" when nothing.
func (l *lesson) heldKey() string {
	if len(l.held) == 0 {
		return ""
	}
	b, _ := json.Marshal(l.held)
	return string(b)
}

// wait returns once cond, called under the lock, is true, or with an
// error when ctx ends or the stream has stopped.
func (l *lesson) wait(ctx context.Context, cond func(*lesson) bool) error {
	for {
		l.mu.Lock()
		ok, err, changed := cond(l), l.err, l.changed
		l.mu.Unlock()
		if ok {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// driveUntil steps the lesson with the teacher page's #next until cond
// holds: each time the gate holds something it has not been clicked for,
// next clicks.
func (l *lesson) driveUntil(ctx context.Context, next func(context.Context) error, cond func(*lesson) bool) error {
	clicked := ""
	for {
		var fire bool
		err := l.wait(ctx, func(l *lesson) bool {
			fire = false
			if cond(l) {
				return true
			}
			k := l.heldKey()
			fire = k != "" && k != clicked
			if fire {
				clicked = k
			}
			return fire
		})
		if err != nil {
			return err
		}
		if !fire {
			return nil
		}
		if err := next(ctx); err != nil {
			return err
		}
	}
}
