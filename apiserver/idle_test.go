//go:build unix

package apiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/serverchain"
	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/pki"
)

// testIdleTimeout is the idle timeout of the servers in these tests, and
// closeDeadline how long a test waits for the server to close an idle
// connection: generous, for a busy machine.
const (
	testIdleTimeout = time.Second
	closeDeadline   = 60 * time.Second
)

// tlsServer is an API server speaking HTTPS, HTTP/2 and HTTP/1.1, as the
// cluster runs it: the cluster's PKI, bearer tokens and client
// certificates.
type tlsServer struct {
	addr  string
	roots *x509.CertPool
	cert  tls.Certificate // admin's client certificate
}

func startTLSServer(tb testing.TB, mutate ...func(*apiserver.Config)) *tlsServer {
	tb.Helper()
	a, err := pki.Load(pki.NewConfig(tb.TempDir()))
	if err != nil {
		tb.Fatal(err)
	}
	certPEM, keyPEM, err := a.ClientCert(pki.Admin())
	if err != nil {
		tb.Fatal(err)
	}
	ts := &tlsServer{roots: a.CAPool()}
	if ts.cert, err = tls.X509KeyPair(certPEM, keyPEM); err != nil {
		tb.Fatal(err)
	}
	cfg := apiserver.NewConfig(etcdtest.Start(tb).Client())
	cfg.Port = 0
	cfg.TLS = a.ServingTLSConfig()
	cfg.Authenticator = auth.Union(auth.NewTokenAuthenticator(testTokens), auth.NewCertAuthenticator())
	cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName} // as startServer
	for _, m := range mutate {
		m(cfg)
	}
	srv, err := serverchain.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ts.addr = strings.TrimPrefix(srv.URL(), "https://")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("server Run: %v", err)
		}
	})
	client := ts.client(false)
	waitFor(tb, waitTimeout, "server ready", func() bool {
		resp, err := client.Get("https://" + ts.addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return ts
}

// client is an HTTP client of the server, HTTP/2 or HTTP/1.1, that opens
// a connection for each request (so that none is closed under it).
func (ts *tlsServer) client(h2 bool) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ts.roots}, DisableKeepAlives: !h2}
	if h2 {
		tr.ForceAttemptHTTP2 = true
	} else {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &http.Client{Transport: tr, Timeout: waitTimeout}
}

// caller says how a test connection authenticates.
type caller int

const (
	anonymous   caller = iota // no credentials: only /version and the health paths
	bearer                    // admin's bearer token, on each request
	certificate               // admin's client certificate, on the connection
)

func (c caller) String() string { return [...]string{"anonymous", "token", "certificate"}[c] }

// path is what c asks for: a path c may read (200).
func (c caller) path() string {
	if c == anonymous {
		return "/version"
	}
	return "/api/v1/namespaces/default"
}

// dial opens a TLS connection to the server offering only proto by ALPN.
func (ts *tlsServer) dial(c caller, proto string) (*tls.Conn, error) {
	cfg := &tls.Config{RootCAs: ts.roots, NextProtos: []string{proto}}
	if c == certificate {
		cfg.Certificates = []tls.Certificate{ts.cert}
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: waitTimeout}, Config: cfg}
	conn, err := d.Dial("tcp", ts.addr)
	if err != nil {
		return nil, err
	}
	tc := conn.(*tls.Conn)
	if got := tc.ConnectionState().NegotiatedProtocol; got != proto {
		tc.Close()
		return nil, fmt.Errorf("negotiated %q, want %q", got, proto)
	}
	return tc, nil
}

// h1Conn is an HTTP/1.1 keep-alive connection that has carried one
// request of c's, answered 200, and is now idle.
type h1Conn struct {
	conn *tls.Conn
	br   *bufio.Reader
}

func (ts *tlsServer) openH1(c caller) (*h1Conn, error) {
	conn, err := ts.dial(c, "http/1.1")
	if err != nil {
		return nil, err
	}
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\n", c.path(), ts.addr)
	if c == bearer {
		req += "Authorization: Bearer " + adminToken + "\r\n"
	}
	_ = conn.SetDeadline(time.Now().Add(closeDeadline))
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: status %d", c.path(), resp.StatusCode)
		}
		if err == nil && resp.Close {
			err = errors.New("the server asked to close the connection")
		}
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &h1Conn{conn: conn, br: br}, nil
}

// waitClosed reads until the server closes the connection: a read that
// returns EOF, with nothing before it.
func (h *h1Conn) waitClosed() error {
	defer h.conn.Close()
	_ = h.conn.SetReadDeadline(time.Now().Add(closeDeadline))
	n, err := h.br.Read(make([]byte, 1))
	switch {
	case n > 0:
		return errors.New("the server sent bytes on an idle connection")
	case errors.Is(err, io.EOF):
		return nil
	default:
		return fmt.Errorf("connection not closed by the server: %w", err)
	}
}

// h2Conn is an HTTP/2 connection, past the exchange of settings, with no
// stream open.
type h2Conn struct {
	conn     *tls.Conn
	fr       *http2.Framer
	settings map[http2.SettingID]uint32 // the server's
	window   uint32                     // the server's first connection WINDOW_UPDATE
	goAway   bool
}

// openH2 opens an HTTP/2 connection; with request, one GET of c's that
// must be answered 200. The server may close the connection for idleness
// before the request arrives on a busy machine: errClosedEarly.
func (ts *tlsServer) openH2(c caller, request bool) (*h2Conn, error) {
	conn, err := ts.dial(c, "h2")
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(closeDeadline))
	h := &h2Conn{conn: conn, fr: http2.NewFramer(conn, conn), settings: map[http2.SettingID]uint32{}}
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if _, err := io.WriteString(conn, http2.ClientPreface); err == nil {
		err = h.fr.WriteSettings()
	}
	if err == nil && request {
		err = h.get(c)
	}
	if err == nil {
		err = h.handshake(request)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return h, nil
}

var errClosedEarly = errors.New("the server closed the connection before the response")

// get sends a GET of c's path on stream 1.
func (h *h2Conn) get(c caller) error {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	fields := [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", "127.0.0.1"}, {":path", c.path()}}
	if c == bearer {
		fields = append(fields, [2]string{"authorization", "Bearer " + adminToken})
	}
	for _, f := range fields {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	return h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true})
}

// handshake reads frames until the server's settings have come (and are
// acknowledged to it) and, with request, the response on stream 1 has
// ended.
func (h *h2Conn) handshake(request bool) error {
	gotSettings, ended := false, !request
	for !gotSettings || !ended {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return errors.Join(errClosedEarly, err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			_ = f.ForeachSetting(func(s http2.Setting) error { h.settings[s.ID] = s.Val; return nil })
			gotSettings = true
			if err := h.fr.WriteSettingsAck(); err != nil {
				return err
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 && h.window == 0 {
				h.window = f.Increment
			}
		case *http2.MetaHeadersFrame:
			if st := f.PseudoValue("status"); st != "200" {
				return fmt.Errorf("status %s", st)
			}
			ended = ended || f.StreamEnded()
		case *http2.DataFrame:
			ended = ended || f.StreamEnded()
		case *http2.GoAwayFrame:
			return errClosedEarly
		}
	}
	return nil
}

// waitClosed reads until the server closes the connection: a GOAWAY
// frame, then a read that returns EOF.
func (h *h2Conn) waitClosed() error {
	defer h.conn.Close()
	_ = h.conn.SetReadDeadline(time.Now().Add(closeDeadline))
	for {
		f, err := h.fr.ReadFrame()
		switch {
		case errors.Is(err, io.EOF) && h.goAway:
			return nil
		case errors.Is(err, io.EOF):
			return errors.New("closed without a GOAWAY frame")
		case err != nil:
			return fmt.Errorf("connection not closed by the server: %w", err)
		}
		switch f.(type) {
		case *http2.GoAwayFrame:
			h.goAway = true
		case *http2.HeadersFrame, *http2.MetaHeadersFrame, *http2.DataFrame:
			return fmt.Errorf("unexpected %v frame on an idle connection", f.Header().Type)
		}
	}
}

// openH2Retrying opens an HTTP/2 connection with a request, again if the
// server found the connection idle before the request arrived.
func (ts *tlsServer) openH2Retrying(c caller) (*h2Conn, error) {
	for range 5 {
		h, err := ts.openH2(c, true)
		if !errors.Is(err, errClosedEarly) {
			return h, err
		}
	}
	return nil, errClosedEarly
}

func withIdleTimeout(d time.Duration) func(*apiserver.Config) {
	return func(cfg *apiserver.Config) { cfg.IdleTimeout = d }
}

// An idle connection is closed by the server after the idle timeout:
// HTTP/1.1 between requests, HTTP/2 with no stream open (after a GOAWAY
// frame), whoever the caller is.
func TestIdleConnectionsAreClosed(t *testing.T) {
	ts := startTLSServer(t, withIdleTimeout(testIdleTimeout))
	for _, c := range []caller{anonymous, bearer, certificate} {
		t.Run("http1.1/"+c.String(), func(t *testing.T) {
			t.Parallel()
			h, err := ts.openH1(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.waitClosed(); err != nil {
				t.Error(err)
			}
		})
		t.Run("h2/"+c.String(), func(t *testing.T) {
			t.Parallel()
			h, err := ts.openH2Retrying(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.waitClosed(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("h2/no request", func(t *testing.T) {
		t.Parallel()
		h, err := ts.openH2(certificate, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.waitClosed(); err != nil {
			t.Error(err)
		}
	})
}

// manyConnections is how many idle connections the next test opens: 1,000,
// or fewer if the limit on open files would not allow both of their ends
// (client and server are this process) and some room.
func manyConnections(tb testing.TB) int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		tb.Fatal(err)
	}
	n := min(1000, (int(lim.Cur)-256)/2)
	if n < 100 {
		tb.Skipf("ulimit -n is %d: too low for many connections", lim.Cur)
	}
	return n
}

// Many idle anonymous connections, half HTTP/1.1 after a request, half
// HTTP/2 that never sent one, are all closed by the server.
func TestManyIdleConnectionsAreClosed(t *testing.T) {
	ts := startTLSServer(t, withIdleTimeout(testIdleTimeout))
	n := manyConnections(t)
	sem := make(chan struct{}, 32) // TLS handshakes at a time
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			var wait func() error
			var err error
			if i%2 == 0 {
				var h *h1Conn
				if h, err = ts.openH1(anonymous); err == nil {
					wait = h.waitClosed
				}
			} else {
				var h *h2Conn
				if h, err = ts.openH2(anonymous, false); err == nil {
					wait = h.waitClosed
				}
			}
			<-sem
			if err == nil {
				err = wait()
			}
			if err != nil {
				errs <- fmt.Errorf("connection %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed < 5 {
			t.Error(err)
		}
		failed++
	}
	if failed > 0 {
		t.Errorf("%d of %d idle connections were not closed by the server", failed, n)
	}
}

// The server advertises kube-apiserver's HTTP/2 limits: 100 concurrent
// streams, 256 KiB frames and stream windows, and a connection window of
// 256 KiB per stream.
func TestHTTP2Limits(t *testing.T) {
	ts := startTLSServer(t)
	h, err := ts.openH2(anonymous, false)
	if err != nil {
		t.Fatal(err)
	}
	defer h.conn.Close()
	want := map[http2.SettingID]uint32{
		http2.SettingMaxConcurrentStreams: apiserver.DefaultHTTP2MaxStreamsPerConnection,
		http2.SettingMaxFrameSize:         256 << 10,
		http2.SettingInitialWindowSize:    256 << 10,
	}
	for id, v := range want {
		if got := h.settings[id]; got != v {
			t.Errorf("setting %v = %d, want %d", id, got, v)
		}
	}
	// The connection window starts at 65535; the server's first
	// WINDOW_UPDATE, which follows its settings, raises it to its
	// receive buffer.
	for h.window == 0 {
		f, err := h.fr.ReadFrame()
		if err != nil {
			t.Fatalf("no WINDOW_UPDATE for the connection: %v", err)
		}
		if wu, ok := f.(*http2.WindowUpdateFrame); ok && wu.StreamID == 0 {
			h.window = wu.Increment
		}
	}
	if got, want := h.window+65535, uint32(256<<10*apiserver.DefaultHTTP2MaxStreamsPerConnection); got != want {
		t.Errorf("connection window %d, want %d", got, want)
	}
}

// A watch is not idle: it goes on past the idle timeout, over HTTP/1.1 and
// HTTP/2, and still delivers events.
func TestWatchOutlivesIdleTimeout(t *testing.T) {
	ts := startTLSServer(t, withIdleTimeout(testIdleTimeout))
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "http1.1", true: "h2"}[h2], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+ts.addr+"/api/v1/namespaces/default/pods?watch=1", nil)
			req.Header.Set("Authorization", "Bearer "+adminToken)
			client := ts.client(h2)
			client.Timeout = 0 // the watch is read under closeDeadline below
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2] {
				t.Fatalf("watch: status %d over %s", resp.StatusCode, resp.Proto)
			}
			// A connection idle since after the watch started is closed:
			// the idle timeout has passed for the watch too.
			sentinel, err := ts.openH1(anonymous)
			if err != nil {
				t.Fatal(err)
			}
			if err := sentinel.waitClosed(); err != nil {
				t.Fatalf("sentinel: %v", err)
			}
			name := fmt.Sprintf("after-idle-%v", h2)
			body, _ := json.Marshal(testPod(name, nil))
			post, _ := http.NewRequest("POST", "https://"+ts.addr+"/api/v1/namespaces/default/pods", bytes.NewReader(body))
			post.Header.Set("Authorization", "Bearer "+adminToken)
			post.Header.Set("Content-Type", "application/json")
			presp, err := ts.client(false).Do(post)
			if err != nil {
				t.Fatal(err)
			}
			presp.Body.Close()
			if presp.StatusCode != http.StatusCreated {
				t.Fatalf("create: status %d", presp.StatusCode)
			}
			timer := time.AfterFunc(closeDeadline, cancel)
			defer timer.Stop()
			waitAdded(t, json.NewDecoder(resp.Body), name)
		})
	}
}

// waitAdded reads a JSON watch stream until the ADDED event of the
// object name, failing the test if the stream ends first.
func waitAdded(t *testing.T, dec *json.Decoder, name string) {
	t.Helper()
	for {
		var ev struct {
			Type   string
			Object metav1.PartialObjectMetadata
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("the watch ended before the ADDED event of %s: %v", name, err)
		}
		if ev.Type == "ADDED" && ev.Object.Name == name {
			return
		}
	}
}
