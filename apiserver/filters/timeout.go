package filters

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesim/kubesim/apiserver/request"
)

// withTimeout ends non-watch requests that take longer than the request
// timeout (or a shorter ?timeout= the client asked for) with a 504 Status,
// as kube-apiserver does after its 60 s default. The handler's context is
// cancelled (its cause is context.DeadlineExceeded), so storage calls stop
// too; whatever it writes afterwards is discarded. Time the handler spends
// held at a gate point does not count (pauseRequestTimeout).
func withTimeout(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		timeout := c.RequestTimeout
		if v := r.URL.Query().Get("timeout"); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d > 0 && d < timeout {
				timeout = d
			}
		}
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		timer := request.NewPausableTimer(timeout, func() { cancel(context.DeadlineExceeded) })
		defer timer.Stop()
		ctx = request.WithTimeoutTimer(ctx, timer)
		tw := &timeoutWriter{w: w, header: http.Header{}}
		done := make(chan any, 1)
		go func() {
			defer func() {
				// A panic is re-raised on the serving goroutine, where
				// the panic filter answers it.
				done <- recover()
			}()
			h.ServeHTTP(tw, r.WithContext(ctx))
		}()
		select {
		case p := <-done:
			if p != nil {
				panic(p)
			}
			tw.flush()
		case <-ctx.Done():
			if tw.timeout() {
				if r.ProtoMajor == 1 {
					// The handler may not have read the whole body; the
					// connection cannot carry another request.
					w.Header().Set("Connection", "close")
				}
				c.WriteError(w, r, apierrors.NewTimeoutError(fmt.Sprintf("request did not complete within requested timeout - %v", context.Cause(ctx)), 0))
			}
		}
	})
}

// timeoutWriter buffers a response until the handler finishes in time; after
// a timeout it swallows everything.
type timeoutWriter struct {
	mu       sync.Mutex
	w        http.ResponseWriter
	header   http.Header
	code     int
	buf      []byte
	timedOut bool
	done     bool
}

func (t *timeoutWriter) Header() http.Header { return t.header }

func (t *timeoutWriter) WriteHeader(code int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.code == 0 {
		t.code = code
	}
}

func (t *timeoutWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	if t.code == 0 {
		t.code = http.StatusOK
	}
	t.buf = append(t.buf, b...)
	return len(b), nil
}

// timeout marks the response as timed out; false if it was already sent.
func (t *timeoutWriter) timeout() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return false
	}
	t.timedOut = true
	return true
}

// flush sends the buffered response.
func (t *timeoutWriter) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	dst := t.w.Header()
	for k, v := range t.header {
		dst[k] = v
	}
	if t.code == 0 {
		t.code = http.StatusOK
	}
	t.w.WriteHeader(t.code)
	_, _ = t.w.Write(t.buf)
}
