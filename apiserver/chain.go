package apiserver

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// buildHandlerChain wraps the go-restful container in the request filters,
// inside out: each line wraps everything above it, so the last line runs
// first on a request.
func (s *Server) buildHandlerChain(apiHandler http.Handler) http.Handler {
	h := apiHandler
	h = withCacheControl(h)     // responses about cluster state are never cached
	h = withAuditID(h)          // every request gets an id, echoed in Audit-Id
	h = withPanicRecovery(h, s) // a panic anywhere becomes a 500 Status; the server lives on
	return h
}

// withCacheControl marks every response private and uncached, as
// kube-apiserver does.
func withCacheControl(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache, private")
		h.ServeHTTP(w, r)
	})
}

// withAuditID gives the request an id (the client's Audit-ID if it sent
// one) and returns it in the Audit-Id header.
func withAuditID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Audit-ID")
		if id == "" {
			id = string(uuid.NewUUID())
			r.Header.Set("Audit-ID", id)
		}
		w.Header().Set("Audit-Id", id)
		h.ServeHTTP(w, r)
	})
}

// withPanicRecovery answers a handler panic with a 500 Status (when the
// response has not started) instead of dropping the connection.
func withPanicRecovery(h http.Handler, s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &startedWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.cfg.errorLog().Printf("panic serving %s %s: %v", r.Method, r.URL.Path, v)
			if !rw.started {
				s.writeError(w, r, apierrors.NewInternalError(fmt.Errorf("this request caused the server to panic: %v", v)))
			}
		}()
		h.ServeHTTP(rw, r)
	})
}

// startedWriter records whether the response has begun.
type startedWriter struct {
	http.ResponseWriter
	started bool
}

func (w *startedWriter) WriteHeader(code int) {
	w.started = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *startedWriter) Write(b []byte) (int, error) {
	w.started = true
	return w.ResponseWriter.Write(b)
}

// Flush lets streaming handlers (watch) push each chunk out.
func (w *startedWriter) Flush() {
	w.started = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController access to the real writer.
func (w *startedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
