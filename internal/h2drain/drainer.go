package h2drain

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Drainer ends an HTTP server's HTTP/2 connections at shutdown as soon as
// they are done, instead of a second later.
//
// kube-apiserver (as the servers of kubesim) shuts down with
// http.Server.Shutdown: the
// listener closes, every HTTP/2 connection is sent a GOAWAY frame, and
// the requests in flight finish. But once a connection has no stream
// left, net/http's HTTP/2 server still waits for the client to hang up,
// for a fixed second (its goAwayTimeout), so that the client reads the
// GOAWAY before the connection goes; and a Go client never hangs up a
// connection that is idle when the GOAWAY comes (it drops it from its
// pool, so that even CloseIdleConnections leaves it; it does hang up one
// whose last stream ends after the GOAWAY). With the cluster's own clients (the
// scheduler, the kubelets, informers, the aggregator's proxy) holding
// idle connections, every shutdown of the API server, and of the metrics
// server, took a second more.
//
// During shutdown the drainer sends a TLS close_notify on each HTTP/2
// connection that has no stream open, once everything the server wrote
// on it is out: the client then reads end of stream after the last byte
// of the last response (and, as a rule, the GOAWAY), closes its end, and
// the server's connection ends at once. "Everything is out" is known without reaching
// into net/http: the HTTP/2 server buffers its frames and writes them out
// in one TLS write when its queue is empty (the GOAWAY is written the same
// way), so the first write on the socket that starts after the connection
// had no stream left, and after shutdown began, carries all that was
// buffered; close_notify, which takes the TLS connection's write lock,
// goes after that write. A connection where no such write comes (its last
// response went out in a write of its own) is left to net/http's second.
// HTTP/1.1 connections are Shutdown's own business: it closes the idle
// ones.
//
// Use: serve srv (with TLS) on d.Listener(ln), set srv.ConnState to
// d.ConnState, and shut down with d.Shutdown.
type Drainer struct {
	shutting atomic.Bool
	wake     chan struct{}

	mu    sync.Mutex
	conns map[*tls.Conn]*drainConn
	// closing counts the close_notify writes in progress; drained, the
	// connections they were sent on.
	closing sync.WaitGroup
	drained int
}

// drainConn is what the drainer knows of one TLS connection.
type drainConn struct {
	raw  *countingConn
	h2   bool
	idle bool
	// idleMark and shutdownMark are raw's write count when the
	// connection last had no stream left, and when shutdown began (or
	// the drainer first saw it afterwards).
	idleMark, shutdownMark uint64
	closing                bool
}

// New returns a Drainer for one server.
func New() *Drainer {
	return &Drainer{wake: make(chan struct{}, 1), conns: map[*tls.Conn]*drainConn{}}
}

// Listener wraps ln so that the drainer can count the writes on every
// connection it accepts.
func (d *Drainer) Listener(ln net.Listener) net.Listener { return drainListener{ln, d} }

type drainListener struct {
	net.Listener
	d *Drainer
}

func (l drainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, d: l.d}, nil
}

// countingConn counts the writes started on a connection's socket.
type countingConn struct {
	net.Conn
	d      *Drainer
	writes atomic.Uint64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1) // before the write: close_notify must wait for it
	if c.d.shutting.Load() {
		c.d.nudge()
	}
	return c.Conn.Write(p)
}

func (d *Drainer) nudge() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// ConnState is the server's ConnState hook. The HTTP/2 server reports a
// connection Active when its first stream opens and Idle when its last
// closes, after writing that stream's last frame into its buffer.
func (d *Drainer) ConnState(c net.Conn, state http.ConnState) {
	tc, ok := c.(*tls.Conn)
	if !ok {
		return
	}
	switch state {
	case http.StateClosed, http.StateHijacked:
		d.mu.Lock()
		delete(d.conns, tc)
		d.mu.Unlock()
		return
	case http.StateActive, http.StateIdle:
	default:
		return
	}
	raw, ok := tc.NetConn().(*countingConn)
	if !ok {
		return
	}
	d.mu.Lock()
	dc := d.conns[tc]
	if dc == nil {
		// The handshake is over: Active and Idle come after it.
		dc = &drainConn{raw: raw, h2: tc.ConnectionState().NegotiatedProtocol == "h2"}
		if d.shutting.Load() {
			dc.shutdownMark = raw.writes.Load()
		}
		d.conns[tc] = dc
	}
	dc.idle = state == http.StateIdle
	if dc.idle {
		dc.idleMark = raw.writes.Load()
	}
	d.mu.Unlock()
}

// Shutdown ends srv as kube-apiserver does, stopping the listener and
// letting the requests in flight finish (the caller ends long-running
// ones, such as watches, first), with the drainer ending the HTTP/2
// connections as soon as they are done; past grace, srv is closed. It
// returns once srv has no connection left.
func (d *Drainer) Shutdown(srv *http.Server, grace time.Duration) {
	d.begin()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.run(ctx)
	}()
	shutCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		srv.Close()
	}
	stop()
	<-done
}

// begin marks the start of shutdown, before http.Server.Shutdown sends
// its GOAWAY frames.
func (d *Drainer) begin() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dc := range d.conns {
		dc.shutdownMark = dc.raw.writes.Load()
	}
	d.shutting.Store(true)
}

// run sends close_notify on the connections that are done, as writes
// show them to be, until ctx is done; it then waits for the close_notify
// writes it started.
func (d *Drainer) run(ctx context.Context) {
	defer d.closing.Wait()
	for {
		select {
		case <-d.wake:
			d.closeDone()
		case <-ctx.Done():
			return
		}
	}
}

func (d *Drainer) closeDone() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for tc, dc := range d.conns {
		w := dc.raw.writes.Load()
		if !dc.h2 || !dc.idle || dc.closing || w <= dc.idleMark || w <= dc.shutdownMark {
			continue
		}
		dc.closing = true
		d.drained++
		d.closing.Add(1)
		go func() {
			defer d.closing.Done()
			_ = tc.CloseWrite() // waits for the write in progress
		}()
	}
}

// Drained is how many connections the drainer has ended.
func (d *Drainer) Drained() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.drained
}
