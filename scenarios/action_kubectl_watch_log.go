package scenarios

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// watcher is the client a kubectlWatch step runs: kubectl, or client-go
// sending kubectl's requests. Its methods are called from Play's
// goroutine.
type watcher interface {
	// client says which ran: the kubectl binary and its version, or
	// client-go.
	client() string
	// waitWatching returns once the watch request was answered.
	waitWatching(ctx context.Context) error
	// waitLine returns once a printed line matches.
	waitLine(ctx context.Context, match func(string) bool) error
	// stop ends the client (kubectl: as Ctrl-C does) and waits for it.
	stop() error
	// log is what the client logged and printed.
	log() *watchLog
}

// clientRequest is one request the watching client sent, as the client
// logged it.
type clientRequest struct {
	Method, URL       string
	Accept, UserAgent string
	// Status is the response's status ("200 OK"), once answered.
	Status      string
	AuditID     string
	ContentType string
	// ListRV is, for the list, the resourceVersion it answered with.
	ListRV string
}

// pathQuery is the request's path and query, as a server sees them.
func (r clientRequest) pathQuery() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return r.URL
	}
	return u.RequestURI()
}

// isWatch says whether the request is a watch (?watch=true).
func (r clientRequest) isWatch() bool {
	u, err := url.Parse(r.URL)
	return err == nil && (u.Query().Get("watch") == "true" || u.Query().Get("watch") == "1")
}

// isPods says whether the request is for the pods collection (not
// discovery).
func (r clientRequest) isPods() bool {
	u, err := url.Parse(r.URL)
	return err == nil && strings.HasSuffix(u.Path, "/pods")
}

// watchLog is what a watching client logged (its requests) and printed
// (its lines), written by the client's goroutines and read by the step.
type watchLog struct {
	mu      sync.Mutex
	reqs    []clientRequest
	lines   []string
	changed chan struct{} // closed and replaced at every change
	ended   bool          // the client is done
	endErr  error         // why it ended, if it failed
}

func newWatchLog() *watchLog { return &watchLog{changed: make(chan struct{})} }

// update changes the log under its lock and wakes who waits.
func (l *watchLog) update(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
	close(l.changed)
	l.changed = make(chan struct{})
}

// end notes that the client ended, with err if it failed.
func (l *watchLog) end(err error) {
	l.update(func() { l.ended, l.endErr = true, err })
}

// snapshot returns copies of the requests and lines so far.
func (l *watchLog) snapshot() ([]clientRequest, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]clientRequest(nil), l.reqs...), append([]string(nil), l.lines...)
}

// wait returns once cond (called under the lock) holds, or an error when
// the client ended first or ctx is done; what says what was awaited.
func (l *watchLog) wait(ctx context.Context, what string, cond func() bool) error {
	for {
		l.mu.Lock()
		ok, ended, endErr, changed := cond(), l.ended, l.endErr, l.changed
		l.mu.Unlock()
		switch {
		case ok:
			return nil
		case ended && endErr != nil:
			return fmt.Errorf("%s: %w", what, endErr)
		case ended:
			return fmt.Errorf("%s: the client ended first", what)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
	}
}

// waitWatching waits until the log has the watch request's answer.
func (l *watchLog) waitWatching(ctx context.Context) error {
	return l.wait(ctx, "waiting for the watch request's answer", func() bool {
		for _, r := range l.reqs {
			if r.isWatch() && r.Status != "" {
				return true
			}
		}
		return false
	})
}

// waitLine waits until a printed line matches.
func (l *watchLog) waitLine(ctx context.Context, match func(string) bool) error {
	return l.wait(ctx, "waiting for the pod's line", func() bool {
		for _, s := range l.lines {
			if match(s) {
				return true
			}
		}
		return false
	})
}

// lineWriter is an io.Writer that hands each complete line written to
// it to fn, under the log's lock.
type lineWriter struct {
	l       *watchLog
	partial []byte
	fn      func(line string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.l.update(func() {
		w.partial = append(w.partial, b...)
		for {
			i := strings.IndexByte(string(w.partial), '\n')
			if i < 0 {
				return
			}
			line := strings.TrimRight(string(w.partial[:i]), "\r")
			w.partial = w.partial[i+1:]
			w.fn(line)
		}
	})
	return len(b), nil
}
