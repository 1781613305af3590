package filters

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/internal/flow"
)

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
func withTrace(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := request.NewTrace(time.Now(), !c.Recorder.HasReaders(), flow.RequestTrace{
			AuditID:    r.Header.Get("Audit-ID"),
			Method:     r.Method,
			URI:        r.URL.RequestURI(),
			Proto:      r.Proto,
			RemoteAddr: r.RemoteAddr,
			UserAgent:  r.UserAgent(),
		})
		if t.Recording() {
			t.Step("received", "ok", fmt.Sprintf("%s %s over %s from %s", r.Method, r.URL.RequestURI(), r.Proto, r.RemoteAddr),
				"proto", r.Proto, "remote", r.RemoteAddr)
			gid := goroutineID()
			t.Step("goroutine", "ok", goroutineDetail(r.ProtoMajor, gid), "goroutine", gid)
		}
		cw := &countingWriter{ResponseWriter: w}
		defer func() {
			code := cw.code
			if code == 0 {
				code = http.StatusOK
			}
			t.Finish(code, cw.bytes)
			if !t.Recording() {
				return
			}
			t.Step("responded", outcomeOf(code), fmt.Sprintf("status %d %s, %d bytes", code, http.StatusText(code), cw.bytes),
				"code", fmt.Sprint(code), "bytes", fmt.Sprint(cw.bytes))
			c.recordTrace(t)
		}()
		h.ServeHTTP(cw, r.WithContext(request.WithTrace(r.Context(), t)))
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
func (c *Config) recordTrace(t *request.Trace) {
	if !c.Recorder.HasReaders() {
		return // it would reach nobody
	}
	rt := t.Snapshot()
	c.Recorder.Record(flow.Event{
		Component: c.Component,
		Object:    t.Object(),
		Time:      t.Start(),
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
