package scenarios

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
)

// httpClient is what the http action needs to reach the API server as
// one user.
type httpClient struct {
	base  *url.URL
	tls   *tls.Config
	token string
}

// httpClientAs returns what the http action needs to reach the API
// server as user: its address, TLS configuration and token.
func (p *player) httpClientAs(user string) (*httpClient, error) {
	cfg, err := p.cluster.RESTConfigAs(user)
	if err != nil {
		return nil, err
	}
	tc, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	if tc == nil {
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	base, err := url.Parse(p.cluster.URL)
	if err != nil {
		return nil, err
	}
	return &httpClient{base: base, tls: tc, token: cfg.BearerToken}, nil
}

// watchEvent is one decoded watch event.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"object"`
}

// exchange is one request's outcome.
type exchange struct {
	status  int
	auditID string // the Audit-Id the API server answered with
	body    []byte
	events  []watchEvent
}

// hasQuery reports whether path's query has key.
func hasQuery(path, key string) bool {
	u, err := url.Parse(path)
	return err == nil && u.Query().Has(key)
}

// withQuery sets key=value in path's query.
func withQuery(path, key, value string) string {
	u, err := url.Parse(path)
	if err != nil {
		return path
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// resourceVersionOf returns metadata.resourceVersion of a JSON object or
// list ("" if body is neither).
func resourceVersionOf(body []byte) string {
	var obj struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) != nil {
		return ""
	}
	return obj.Metadata.ResourceVersion
}

// decodeEvents decodes the complete JSON lines at the start of buf into
// out, returning the rest.
func decodeEvents(buf []byte, out *[]watchEvent) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return buf
		}
		line := bytes.TrimSpace(buf[:i])
		buf = buf[i+1:]
		if len(line) == 0 {
			continue
		}
		var ev watchEvent
		if json.Unmarshal(line, &ev) == nil && ev.Type != "" {
			*out = append(*out, ev)
		}
	}
}

// describeEvent describes a watch event in one transcript line.
func describeEvent(ev watchEvent) string {
	s := "event " + ev.Type
	if ev.Object.Kind != "" {
		s += " " + ev.Object.Kind
	}
	if ev.Object.Metadata.Name != "" {
		s += " " + ev.Object.Metadata.Name
	}
	if ev.Object.Metadata.ResourceVersion != "" {
		s += " resourceVersion " + ev.Object.Metadata.ResourceVersion
	}
	if ev.Type == "ERROR" {
		s += fmt.Sprintf(" (%d: %s)", ev.Object.Code, ev.Object.Message)
	}
	return s
}

// http1 makes one request over its own HTTP/1.1 connection, reading the
// response by hand so that the transcript shows the chunked framing. With
// stopAfter > 0 it reads watch events until it has that many (with
// untilTheEnd, until the server ends the stream), then
// closes the connection.
func (hc *httpClient) http1(ctx context.Context, a *HTTPAction, path string, stopAfter int, logf func(string, ...any)) (exchange, error) {
	var ex exchange
	conn, err := hc.dialHTTP1(ctx)
	if err != nil {
		return ex, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	logf("> %s %s HTTP/1.1", a.Method, path)
	if _, err := io.WriteString(conn, hc.http1Request(a, path)); err != nil {
		return ex, err
	}
	br := bufio.NewReader(conn)
	r := http1Reader{ctx: ctx, br: br, tp: textproto.NewReader(br), logf: logf, ex: &ex}
	hdr, err := r.head()
	if err != nil {
		return ex, err
	}
	if strings.EqualFold(hdr.Get("Transfer-Encoding"), "chunked") {
		return ex, r.chunks(stopAfter)
	}
	return ex, r.body(hdr.Get("Content-Length"))
}

// dialHTTP1 opens a TLS connection to the API server that offers only
// http/1.1.
func (hc *httpClient) dialHTTP1(ctx context.Context) (net.Conn, error) {
	tc := hc.tls.Clone()
	tc.NextProtos = []string{"http/1.1"}
	if tc.ServerName == "" {
		tc.ServerName = hc.base.Hostname()
	}
	d := tls.Dialer{Config: tc}
	return d.DialContext(ctx, "tcp", hc.base.Host)
}

// http1Request returns the request's bytes: request line, headers
// (Connection: close), body.
func (hc *httpClient) http1Request(a *HTTPAction, path string) string {
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: application/json\r\n", a.Method, path, hc.base.Host, ActionUserAgent)
	if hc.token != "" {
		req.WriteString("Authorization: Bearer " + hc.token + "\r\n")
	}
	if a.Body != "" {
		ct := a.ContentType
		if ct == "" {
			ct = "application/json"
		}
		fmt.Fprintf(&req, "Content-Type: %s\r\nContent-Length: %d\r\n", ct, len(a.Body))
	}
	req.WriteString("Connection: close\r\n\r\n")
	req.WriteString(a.Body)
	return req.String()
}

// http1Reader reads one HTTP/1.1 response into ex, writing the transcript
// with logf.
type http1Reader struct {
	ctx  context.Context
	br   *bufio.Reader
	tp   *textproto.Reader // over br
	logf func(string, ...any)
	ex   *exchange
}

// head reads the status line and the headers.
func (r http1Reader) head() (textproto.MIMEHeader, error) {
	statusLine, err := r.tp.ReadLine()
	if err != nil {
		return nil, ctxErr(r.ctx, err)
	}
	r.logf("< %s", statusLine)
	parts := strings.SplitN(statusLine, " ", 3)
	if len(parts) < 2 {
		return nil, fmt.Errorf("bad status line %q", statusLine)
	}
	if r.ex.status, err = strconv.Atoi(parts[1]); err != nil {
		return nil, fmt.Errorf("bad status line %q", statusLine)
	}
	hdr, err := r.tp.ReadMIMEHeader()
	if err != nil {
		return nil, ctxErr(r.ctx, err)
	}
	r.ex.auditID = hdr.Get("Audit-Id")
	for _, k := range []string{"Content-Type", "Transfer-Encoding", "Content-Length"} {
		if v := hdr.Get(k); v != "" {
			r.logf("< %s: %s", k, v)
		}
	}
	return hdr, nil
}

// untilTheEnd, as stopAfter, reads a watch's events until the server
// ends the stream (the watch's timeout, or the server stopping).
const untilTheEnd = -1

// chunks reads a chunked body to its end, or, with stopAfter > 0, until
// that many watch events have arrived (with untilTheEnd: decoding them,
// to its end).
func (r http1Reader) chunks(stopAfter int) error {
	var pending []byte
	for {
		line, err := r.tp.ReadLine()
		if err != nil {
			return ctxErr(r.ctx, err)
		}
		sizeStr, _, _ := strings.Cut(line, ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeStr), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size line %q", line)
		}
		if size == 0 {
			return r.lastChunk(line)
		}
		data := make([]byte, size)
		if _, err := io.ReadFull(r.br, data); err != nil {
			return ctxErr(r.ctx, err)
		}
		if _, err := r.tp.ReadLine(); err != nil { // the CRLF after the data
			return ctxErr(r.ctx, err)
		}
		r.logf("< chunk %q + %d bytes + \"\\r\\n\": %s", line+"\r\n", size, flow.Preview(data))
		r.ex.body = append(r.ex.body, data...)
		if stopAfter != 0 {
			before := len(r.ex.events)
			pending = decodeEvents(append(pending, data...), &r.ex.events)
			for _, ev := range r.ex.events[before:] {
				r.logf("  %s", describeEvent(ev))
			}
			if stopAfter > 0 && len(r.ex.events) >= stopAfter {
				r.logf("  (%d events read: the client closes the connection)", len(r.ex.events))
				return nil
			}
		}
	}
}

// lastChunk reads what follows the last chunk's size line (line): the
// trailer fields, if any, and the empty line that ends the message, and
// logs the whole ending as it came, "0\r\n\r\n" without trailers.
func (r http1Reader) lastChunk(line string) error {
	end := line + "\r\n"
	var trailers int
	for {
		t, err := r.tp.ReadLine()
		if err != nil {
			return ctxErr(r.ctx, err)
		}
		end += t + "\r\n"
		if t == "" {
			break
		}
		trailers++
	}
	fields := "no trailer fields"
	if trailers > 0 {
		fields = fmt.Sprintf("%d trailer fields", trailers)
	}
	r.logf("< last chunk %q: size 0, %s, then the empty line: the response is complete", end, fields)
	return nil
}

// body reads a body of contentLength bytes, or up to the end of the
// connection when there is no Content-Length.
func (r http1Reader) body(contentLength string) error {
	var body []byte
	if contentLength != "" {
		n, err := strconv.ParseInt(contentLength, 10, 64)
		if err != nil {
			return fmt.Errorf("bad Content-Length %q", contentLength)
		}
		body = make([]byte, n)
		if _, err := io.ReadFull(r.br, body); err != nil {
			return ctxErr(r.ctx, err)
		}
	} else {
		var err error
		if body, err = io.ReadAll(r.br); err != nil {
			return ctxErr(r.ctx, err)
		}
	}
	r.ex.body = body
	r.logf("< body (%d bytes): %s", len(body), flow.Preview(body))
	for _, fact := range bodyFacts(body) {
		r.logf("  %s", fact)
	}
	return nil
}

// http2 makes one request over HTTP/2 with net/http. With stopAfter > 0
// it reads watch events from the stream until it has that many, then
// cancels the stream; with untilTheEnd, until the server ends it.
func (hc *httpClient) http2(ctx context.Context, a *HTTPAction, path string, stopAfter int, logf func(string, ...any)) (exchange, error) {
	var ex exchange
	protos := new(http.Protocols)
	protos.SetHTTP2(true)
	tr := &http.Transport{TLSClientConfig: hc.tls.Clone(), Protocols: protos, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := hc.request(rctx, a, path)
	if err != nil {
		return ex, err
	}
	logf("> %s %s (HTTP/2: a HEADERS frame on a new stream)", a.Method, path)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return ex, ctxErr(ctx, err)
	}
	defer resp.Body.Close()
	ex.status = resp.StatusCode
	ex.auditID = resp.Header.Get("Audit-Id")
	logf("< %s %s", resp.Proto, resp.Status)
	if v := resp.Header.Get("Content-Type"); v != "" {
		logf("< content-type: %s", v)
	}
	if stopAfter == 0 {
		b, err := io.ReadAll(resp.Body)
		ex.body = b
		logf("< DATA (%d bytes): %s", len(b), flow.Preview(b))
		for _, fact := range bodyFacts(b) {
			logf("  %s", fact)
		}
		return ex, ctxErr(ctx, err)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			ex.body = append(ex.body, line...)
			before := len(ex.events)
			decodeEvents(line, &ex.events)
			logf("< DATA (%d bytes): %s", len(line), flow.Preview(line))
			for _, ev := range ex.events[before:] {
				logf("  %s", describeEvent(ev))
			}
			if stopAfter > 0 && len(ex.events) >= stopAfter {
				logf("  (%d events read: the client resets the stream, the connection stays)", len(ex.events))
				return ex, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				logf("< END_STREAM after %d events", len(ex.events))
				return ex, nil
			}
			return ex, ctxErr(ctx, err)
		}
	}
}

// request is the action's request for path, with the user's token,
// kubesim's user agent and the body's content type.
func (hc *httpClient) request(ctx context.Context, a *HTTPAction, path string) (*http.Request, error) {
	var body io.Reader
	if a.Body != "" {
		body = strings.NewReader(a.Body)
	}
	ref, err := url.Parse(path)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, a.Method, hc.base.ResolveReference(ref).String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", ActionUserAgent)
	if a.Body != "" {
		ct := a.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if hc.token != "" {
		req.Header.Set("Authorization", "Bearer "+hc.token)
	}
	return req, nil
}

// ctxErr prefers the context's error (a step timeout) to the error of
// the connection it closed.
func ctxErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("timed out: %w", ctx.Err())
		}
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("timed out: %w", err)
	}
	return err
}
