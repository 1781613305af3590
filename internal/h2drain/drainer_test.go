package h2drain_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"

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

// newClient is an HTTP/2 client with a connection of its own, whose end
// ends records (golang.org/x/net/http2's transport, which net/http's
// bundles, takes a dialed connection that is not a *tls.Conn).
func newClient(ts *httptest.Server, ends *clientEnds) *http.Client {
	cfg := ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	cfg.NextProtos = []string{"h2"}
	tr := &http2.Transport{TLSClientConfig: cfg, DialTLSContext: func(ctx context.Context, network, addr string, cfg *tls.Config) (net.Conn, error) {
		c, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &clientConn{Conn: c.(*tls.Conn), ends: ends}, nil
	}}
	return &http.Client{Transport: tr, Timeout: waitfor.Bound}
}

// clientEnds counts how a client's connections ended: closed by the
// client before it read their end (it hung up on its own: Go's client
// does so when a stream ends on a connection that got a GOAWAY), or
// after the server ended them (a TLS close_notify, read as EOF).
type clientEnds struct {
	mu               sync.Mutex
	ownHangUp, ended int
}

func (e *clientEnds) counts() (ownHangUp, ended int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ownHangUp, e.ended
}

// clientConn is a client's TLS connection that tells its clientEnds how
// it ended. It keeps *tls.Conn's ConnectionState, which the HTTP/2
// client needs.
type clientConn struct {
	*tls.Conn
	ends   *clientEnds
	eof    atomic.Bool
	closed sync.Once
}

func (c *clientConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if errors.Is(err, io.EOF) {
		c.eof.Store(true)
	}
	return n, err
}

func (c *clientConn) Close() error {
	c.closed.Do(func() {
		c.ends.mu.Lock()
		defer c.ends.mu.Unlock()
		if c.eof.Load() {
			c.ends.ended++
		} else {
			c.ends.ownHangUp++
		}
	})
	return c.Conn.Close()
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
// request in flight each end once the client has read every byte of its
// response, and none by net/http's one-second timer or by closing the
// server: each is ended by the drainer, or its client hangs up on its
// own. Go's client does the latter when a stream ends on a connection
// that got a GOAWAY before, which the two busy ones may or may not have
// (whether the GOAWAY or the response's end goes out first is a race the
// test cannot steer); it never hangs up a connection that was idle when
// the GOAWAY came, so the idle one is the drainer's. Each case has a
// server of its own, so that every end is known to be its connection's.
func TestShutdownEndsEachConnectionOnceDone(t *testing.T) {
	slowBody := strings.Repeat("s", 1000)
	for _, tc := range []struct {
		name, path, body string
		// idle: the response is read before shutdown; the drainer must
		// end the connection.
		idle bool
	}{
		{"idle", "/", "ok", true},
		{"watch ended at shutdown", "/watch", "event 1\nevent 2\n", false},
		{"request in flight", "/slow", slowBody, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startShutdownCase(t, slowBody)
			var res <-chan result
			if tc.idle {
				if r := <-c.get(tc.path); r.err != nil || r.body != tc.body {
					t.Fatalf("GET %s: %q, %v", tc.path, r.body, r.err)
				}
			} else {
				res = c.get(tc.path)
				wait(t, c.started, tc.path+" started")
			}
			shutDown := make(chan struct{})
			go func() {
				c.d.Shutdown(c.ts.Config, time.Minute)
				close(shutDown)
			}()
			close(c.release) // as Run ends the watches; the slow response goes
			if res != nil {
				if r := <-res; r.err != nil || r.body != tc.body {
					t.Errorf("GET %s: %d bytes %q, err %v; want all %d and a clean end", tc.path, len(r.body), r.body, r.err, len(tc.body))
				}
			}
			wait(t, shutDown, "Shutdown")
			c.checkEnd(t, tc.idle)
		})
	}
}

// shutdownCase is a server through a drainer whose /watch writes a first
// event, then a second once release is closed, and whose /slow writes
// slowBody once release is closed; either closes started as it begins.
type shutdownCase struct {
	ts               *httptest.Server
	d                *h2drain.Drainer
	ends             *clientEnds
	started, release chan struct{}
}

func startShutdownCase(t *testing.T, slowBody string) *shutdownCase {
	c := &shutdownCase{ends: &clientEnds{}, started: make(chan struct{}), release: make(chan struct{})}
	c.ts, c.d = startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/watch":
			io.WriteString(w, "event 1\n")
			w.(http.Flusher).Flush()
			close(c.started)
			<-c.release
			io.WriteString(w, "event 2\n")
		case "/slow":
			close(c.started)
			<-c.release
			io.WriteString(w, slowBody)
		default:
			io.WriteString(w, "ok")
		}
	}))
	return c
}

// result is a response's body as read to its end, or why not.
type result struct {
	body string
	err  error
}

// get sends GET path over HTTP/2 on a connection of its own and reads the
// response to its end.
func (c *shutdownCase) get(path string) <-chan result {
	out := make(chan result, 1)
	go func() {
		resp, err := newClient(c.ts, c.ends).Get(c.ts.URL + path)
		if err != nil {
			out <- result{err: err}
			return
		}
		defer resp.Body.Close()
		if resp.ProtoMajor != 2 {
			out <- result{err: io.ErrUnexpectedEOF, body: resp.Proto}
			return
		}
		body, err := io.ReadAll(resp.Body) // io.EOF, the clean end, is nil here
		out <- result{body: string(body), err: err}
	}()
	return out
}

// checkEnd checks how the case's one connection ended: by the drainer
// (its close_notify, then the client's end), or, unless the connection
// was idle at shutdown, by its client hanging up on its own; never by the
// server otherwise.
func (c *shutdownCase) checkEnd(t *testing.T, idle bool) {
	t.Helper()
	drained := c.d.Drained()
	own, ended := c.ends.counts()
	switch {
	case own+ended != 1:
		t.Errorf("%d connections of the client ended, want 1", own+ended)
	case ended == 1 && drained != 1:
		t.Error("the server ended the connection without the drainer (net/http's timer, or a close)")
	case idle && own == 1:
		t.Error("the client hung up a connection idle at shutdown on its own: the drainer had nothing to do")
	}
}
