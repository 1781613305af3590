package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// requestTrace collects the steps of one request. Its methods are safe on
// a nil receiver (no trace) and for concurrent use. A quiet trace keeps
// who made the request and what it is about (the evidence of its writes
// names them) but no steps: nobody read the flow recorder's events when
// the request came, so its steps would reach nobody; callers that format
// a step's text ask recording first.
type requestTrace struct {
	mu    sync.Mutex
	start time.Time
	quiet bool
	rt    flow.RequestTrace
	obj   flow.ObjectRef
}

// recording reports whether the trace keeps steps (false for nil and for
// a quiet trace).
func (t *requestTrace) recording() bool { return t != nil && !t.quiet }

type traceKey struct{}

func withTraceContext(ctx context.Context, t *requestTrace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// traceFrom returns the request's trace, or nil.
func traceFrom(ctx context.Context) *requestTrace {
	t, _ := ctx.Value(traceKey{}).(*requestTrace)
	return t
}

// step appends a step; kv are alternating field names and values.
func (t *requestTrace) step(name, outcome, detail string, kv ...string) {
	if !t.recording() {
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

// setUser records who made the request.
func (t *requestTrace) setUser(name string, groups []string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.rt.User, t.rt.Groups = name, groups
	t.mu.Unlock()
}

// setRoute records the go-restful route that matched.
func (t *requestTrace) setRoute(route string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.rt.Route = route
	t.mu.Unlock()
}

// setVerb records the request's verb.
func (t *requestTrace) setVerb(verb string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.rt.Verb = verb
	t.mu.Unlock()
}

// setObject records the object the request is about.
func (t *requestTrace) setObject(ref flow.ObjectRef) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.obj = ref
	t.mu.Unlock()
}

// snapshot returns a copy of the trace so far (nil for no trace): the
// evidence of a stage recorded while the request is still running.
func (t *requestTrace) snapshot() *flow.RequestTrace {
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

// author names the request of the trace for the evidence of a write it
// made; nil for a nil trace (a write outside any request).
func (t *requestTrace) author() *flow.WriteAuthor {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return &flow.WriteAuthor{User: t.rt.User, Method: t.rt.Method, URI: t.rt.URI, UserAgent: t.rt.UserAgent, AuditID: t.rt.AuditID}
}

// goroutineID returns the number the Go runtime gives the calling
// goroutine, as shown in its stack traces.
func goroutineID() string {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	fields := strings.Fields(string(line)) // "goroutine 123 [running]:"
	if len(fields) >= 2 {
		return fields[1]
	}
	return "?"
}

// withTrace starts the trace of a request (received, goroutine), counts
// what the response sends, and when the request ends records the trace
// as a flow event. When the recorder has no readers the trace is quiet:
// no steps are made (runtime.Stack, which tells the goroutine, is
// costly, and so is formatting a dozen steps per request for nobody).
func withTrace(h http.Handler, s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := &requestTrace{start: time.Now(), quiet: !s.cfg.Recorder.HasReaders()}
		t.rt = flow.RequestTrace{
			AuditID:    r.Header.Get("Audit-ID"),
			Method:     r.Method,
			URI:        r.URL.RequestURI(),
			Proto:      r.Proto,
			RemoteAddr: r.RemoteAddr,
			UserAgent:  r.UserAgent(),
		}
		if t.recording() {
			t.step("received", "ok", fmt.Sprintf("%s %s over %s from %s", r.Method, r.URL.RequestURI(), r.Proto, r.RemoteAddr),
				"proto", r.Proto, "remote", r.RemoteAddr)
			gid := goroutineID()
			t.step("goroutine", "ok", goroutineDetail(r.ProtoMajor, gid), "goroutine", gid)
		}
		cw := &countingWriter{ResponseWriter: w}
		defer func() {
			code := cw.code
			if code == 0 {
				code = http.StatusOK
			}
			t.mu.Lock()
			t.rt.Code, t.rt.BytesSent, t.rt.Duration = code, cw.bytes, time.Since(t.start)
			t.mu.Unlock()
			if !t.recording() {
				return
			}
			t.step("responded", outcomeOf(code), fmt.Sprintf("status %d %s, %d bytes", code, http.StatusText(code), cw.bytes),
				"code", fmt.Sprint(code), "bytes", fmt.Sprint(cw.bytes))
			s.recordTrace(t)
		}()
		h.ServeHTTP(cw, r.WithContext(withTraceContext(r.Context(), t)))
	})
}

// goroutineDetail says which goroutine net/http runs a request on, as
// the protocol decides it: HTTP/1.1 serves each connection on a goroutine
// of its own, which runs the connection's requests one after another;
// HTTP/2 reads each connection on one goroutine and runs each stream (one
// request) on a goroutine of its own, so that the requests of one
// connection run side by side.
func goroutineDetail(protoMajor int, gid string) string {
	if protoMajor == 2 {
		return "net/http's HTTP/2 server runs each stream (one request) on a goroutine of its own, beside the connection's reader; this request runs on goroutine " + gid
	}
	return "net/http serves each HTTP/1.1 connection on a goroutine of its own, which runs its requests one after another; this request runs on goroutine " + gid
}

func outcomeOf(code int) string {
	if code >= 400 {
		return "failed"
	}
	return "ok"
}

// recordTrace hands a finished trace to the recorder, as an event of no
// stage (Stage 0), if anyone reads it: the stages of a pod's creation
// are recorded while its requests run (see podTracker).
func (s *Server) recordTrace(t *requestTrace) {
	if !s.cfg.Recorder.HasReaders() {
		return // it would reach nobody
	}
	rt := t.snapshot()
	t.mu.Lock()
	obj := t.obj
	t.mu.Unlock()
	s.cfg.Recorder.Record(flow.Event{
		Component: component,
		Object:    obj,
		Time:      t.start,
		Summary:   fmt.Sprintf("%s %s → %d", rt.Method, rt.URI, rt.Code),
		Request:   rt,
	})
}

// countingWriter records the status code and the bytes written.
type countingWriter struct {
	http.ResponseWriter
	code  int
	bytes int64
}

func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush passes flushes through (watches need them).
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController access to the real writer.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sortedKeys lists a map's keys in order, for stable trace details.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
