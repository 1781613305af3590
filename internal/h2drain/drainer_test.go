package h2drain_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/h2drain"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// startServer serves h over TLS with HTTP/2 through a drainer.
func startServer(t *testing.T, h http.Handler) (*httptest.Server, *h2drain.Drainer) {
	t.Helper()
	d := h2drain.New()
	ts := httptest.NewUnstartedServer(h)
	ts.EnableHTTP2 = true
	ts.Listener = d.Listener(ts.Listener)
	ts.Config.ConnState = d.ConnState // httptest chains its own hook after
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts, d
}

// newClient is an HTTP/2 client with a connection of its own.
func newClient(ts *httptest.Server) *http.Client {
	return &http.Client{Transport: ts.Client().Transport.(*http.Transport).Clone(), Timeout: time.Minute}
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitfor.Bound):
		t.Fatalf("%s: not within %v", what, waitfor.Bound)
	}
}

// TestShutdownEndsEachConnectionOnceDone: at shutdown, an idle HTTP/2
// connection, one whose watch-like stream the server ends, and one with a
// request in flight are each ended by the drainer (not by net/http's
// one-second timer, nor by closing the server), and only after the
// client has read every byte of its response.
func TestShutdownEndsEachConnectionOnceDone(t *testing.T) {
	stopWatches, slowStarted, releaseSlow := make(chan struct{}), make(chan struct{}), make(chan struct{})
	slowBody := strings.Repeat("s", 1000)
	ts, d := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/watch":
			io.WriteString(w, "event 1\n")
			w.(http.Flusher).Flush()
			<-stopWatches
			io.WriteString(w, "event 2\n")
		case "/slow":
			close(slowStarted)
			<-releaseSlow
			io.WriteString(w, slowBody)
		default:
			io.WriteString(w, "ok")
		}
	}))

	type result struct {
		body string
		err  error
	}
	get := func(path string, onFirstLine chan<- struct{}) <-chan result {
		out := make(chan result, 1)
		go func() {
			resp, err := newClient(ts).Get(ts.URL + path)
			if err != nil {
				out <- result{err: err}
				return
			}
			defer resp.Body.Close()
			if resp.ProtoMajor != 2 {
				out <- result{err: io.ErrUnexpectedEOF, body: resp.Proto}
				return
			}
			br := bufio.NewReader(resp.Body)
			first, err := br.ReadString('\n')
			if onFirstLine != nil {
				close(onFirstLine)
			}
			if err != nil && err != io.EOF {
				out <- result{body: first, err: err}
				return
			}
			rest, err := io.ReadAll(br) // io.EOF, the clean end, is nil here
			out <- result{body: first + string(rest), err: err}
		}()
		return out
	}
	if r := <-get("/", nil); r.err != nil || r.body != "ok" {
		t.Fatalf("GET /: %q, %v", r.body, r.err)
	}
	watching := make(chan struct{})
	watch := get("/watch", watching)
	wait(t, watching, "first event of the watch")
	slow := get("/slow", nil)
	wait(t, slowStarted, "slow request started")

	shutDown := make(chan struct{})
	go func() {
		d.Shutdown(ts.Config, time.Minute)
		close(shutDown)
	}()
	close(stopWatches) // as Run ends the watches
	close(releaseSlow)
	if r := <-watch; r.err != nil || r.body != "event 1\nevent 2\n" {
		t.Errorf("watch: body %q, err %v; want both events and a clean end", r.body, r.err)
	}
	if r := <-slow; r.err != nil || r.body != slowBody {
		t.Errorf("request in flight at shutdown: %d bytes, err %v; want all %d", len(r.body), r.err, len(slowBody))
	}
	wait(t, shutDown, "Shutdown")
	if got := d.Drained(); got != 3 {
		t.Errorf("connections ended by the drainer: %d, want 3 (idle, watch, request in flight)", got)
	}
}
