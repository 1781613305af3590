package request

import (
	"context"
	"sync"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// Trace collects the steps of one request. Its methods are safe on
// a nil receiver (no trace) and for concurrent use. A quiet trace keeps
// who made the request and what it is about (the evidence of its writes
// names them) but no steps: nobody read the flow recorder's events when
// the request came, so its steps would reach nobody; callers that format
// a step's text ask recording first.
type Trace struct {
	mu    sync.Mutex
	start time.Time
	quiet bool
	rt    flow.RequestTrace
	obj   flow.ObjectRef
}

// Recording reports whether the trace keeps steps (false for nil and for
// a quiet trace).
func (t *Trace) Recording() bool { return t != nil && !t.quiet }

type traceKey struct{}

// WithTrace returns ctx carrying t, the trace of its request.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// TraceFrom returns the request's trace, or nil.
func TraceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// Step appends a step; kv are alternating field names and values.
func (t *Trace) Step(name, outcome, detail string, kv ...string) {
	if !t.Recording() {
		return
	}
	var fields map[string]string
	if len(kv) > 1 {
		fields = make(map[string]string, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			fields[kv[i]] = kv[i+1]
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rt.Steps = append(t.rt.Steps, flow.Step{Name: name, At: time.Since(t.start), Outcome: outcome, Detail: detail, Fields: fields})
}

// SetUser records who made the request.
func (t *Trace) SetUser(name string, groups []string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.rt.User, t.rt.Groups = name, groups
	t.mu.Unlock()
}

// SetRoute records the go-restful route that matched.
func (t *Trace) SetRoute(route string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.rt.Route = route
	t.mu.Unlock()
}

// SetVerb records the request's verb.
func (t *Trace) SetVerb(verb string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.rt.Verb = verb
	t.mu.Unlock()
}

// SetObject records the object the request is about.
func (t *Trace) SetObject(ref flow.ObjectRef) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.obj = ref
	t.mu.Unlock()
}

// Snapshot returns a copy of the trace so far (nil for no trace): the
// evidence of a stage recorded while the request is still running.
func (t *Trace) Snapshot() *flow.RequestTrace {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	rt := t.rt
	rt.Steps = append([]flow.Step(nil), t.rt.Steps...)
	rt.Groups = append([]string(nil), t.rt.Groups...)
	return &rt
}

// Author names the request of the trace for the evidence of a write it
// made; nil for a nil trace (a write outside any request).
func (t *Trace) Author() *flow.WriteAuthor {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return &flow.WriteAuthor{User: t.rt.User, Method: t.rt.Method, URI: t.rt.URI, UserAgent: t.rt.UserAgent, AuditID: t.rt.AuditID}
}

// NewTrace starts the trace of a request received at start about rt; a
// quiet one makes no steps (see Trace).
func NewTrace(start time.Time, quiet bool, rt flow.RequestTrace) *Trace {
	return &Trace{start: start, quiet: quiet, rt: rt}
}

// Start is when the request was received.
func (t *Trace) Start() time.Time { return t.start }

// Finish records the response: its status code, the bytes it sent and how
// long the request took.
func (t *Trace) Finish(code int, bytes int64) {
	t.mu.Lock()
	t.rt.Code, t.rt.BytesSent, t.rt.Duration = code, bytes, time.Since(t.start)
	t.mu.Unlock()
}

// Object is the object the request is about (SetObject).
func (t *Trace) Object() flow.ObjectRef {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.obj
}
