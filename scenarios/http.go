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
	"unicode/utf8"

	"k8s.io/client-go/rest"
)

// framePreview is how much of a body or frame a transcript line shows.
const framePreview = 120

// httpClient is what the http action needs to reach the API server as
// one user.
type httpClient struct {
	base  *url.URL
	tls   *tls.Config
	token string
}

func (p *player) httpClientAs(user string) (*httpClient, error) {
	cfg, err := p.c.RESTConfigAs(user)
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
	base, err := url.Parse(p.c.URL)
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

// http runs an http action.
func (p *player) http(ctx context.Context, a *HTTPAction, user string) (StepResult, error) {
	hc, err := p.httpClientAs(user)
	if err != nil {
		return StepResult{}, err
	}
	var res StepResult
	logf := func(format string, args ...any) { res.HTTP = append(res.HTTP, fmt.Sprintf(format, args...)) }
	do := func(path string, stopAfter int) (exchange, error) {
		var ex exchange
		var err error
		if a.Proto == ProtoHTTP1 {
			ex, err = hc.http1(ctx, a, path, stopAfter, logf)
		} else {
			ex, err = hc.http2(ctx, a, path, stopAfter, logf)
		}
		p.noteRequest(ex.auditID)
		return ex, err
	}
	finish := func(ex exchange) {
		res.Status = ex.status
		res.Message = string(ex.body)
		for _, ev := range ex.events {
			res.Watch = append(res.Watch, ev.Type)
		}
	}
	switch a.Mode {
	case ModeRequest:
		ex, err := do(a.Path, 0)
		finish(ex)
		return res, err
	case ModePoll:
		for i := 1; i <= a.Count; i++ {
			logf("-- poll %d of %d", i, a.Count)
			ex, err := do(a.Path, 0)
			finish(ex)
			if err != nil {
				return res, err
			}
			if rv := resourceVersionOf(ex.body); rv != "" {
				logf("   resourceVersion %s", rv)
			}
			if i < a.Count {
				if err := sleep(ctx, p.scaled(a.Interval)); err != nil {
					return res, err
				}
			}
		}
		return res, nil
	case ModeLongPoll:
		logf("-- the current state first, to learn its resourceVersion")
		ex, err := do(a.Path, 0)
		if err != nil || ex.status != http.StatusOK {
			finish(ex)
			return res, err
		}
		rv := resourceVersionOf(ex.body)
		logf("   resourceVersion %s", rv)
		for i := 1; i <= a.Count; i++ {
			path := withQuery(withQuery(a.Path, "watch", "1"), "resourceVersion", rv)
			logf("-- long-poll round %d of %d: the server holds the request until something changes after %s", i, a.Count, rv)
			ex, err := do(path, 1)
			res.Status, res.Message = ex.status, string(ex.body)
			for _, ev := range ex.events {
				res.Watch = append(res.Watch, ev.Type)
			}
			if err != nil {
				return res, err
			}
			for _, ev := range ex.events {
				if ev.Object.Metadata.ResourceVersion != "" {
					rv = ev.Object.Metadata.ResourceVersion
				}
			}
			logf("   connection closed; next round from resourceVersion %s", rv)
		}
		return res, nil
	case ModeWatch:
		path := a.Path
		if !strings.Contains(path, "/watch/") && !hasQuery(path, "watch") {
			path = withQuery(path, "watch", "1")
		}
		ex, err := do(path, a.Count)
		finish(ex)
		return res, err
	}
	return res, fmt.Errorf("unknown http mode %q", a.Mode)
}

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

// preview returns the start of b on one line: text as it is (line
// breaks escaped), binary (a protobuf frame) as hex.
func preview(b []byte) string {
	if !isText(b) {
		n := min(len(b), framePreview/3)
		s := fmt.Sprintf("% x", b[:n])
		if n < len(b) {
			s += " …"
		}
		return "(binary) " + s
	}
	s := strings.TrimRight(string(b), "\r\n")
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
	return truncate(s, framePreview)
}

// events decodes the complete JSON lines at the start of buf, returning
// the rest.
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

// counted says how many events count toward a watch's stopAfter: all
// (BOOKMARKs come only to clients that ask for them).
func counted(evs []watchEvent) int { return len(evs) }

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
// stopAfter > 0 it reads watch events until it has that many, then
// closes the connection.
func (hc *httpClient) http1(ctx context.Context, a *HTTPAction, path string, stopAfter int, logf func(string, ...any)) (exchange, error) {
	var ex exchange
	tc := hc.tls.Clone()
	tc.NextProtos = []string{"http/1.1"}
	if tc.ServerName == "" {
		tc.ServerName = hc.base.Hostname()
	}
	d := tls.Dialer{Config: tc}
	conn, err := d.DialContext(ctx, "tcp", hc.base.Host)
	if err != nil {
		return ex, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

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
	logf("> %s %s HTTP/1.1", a.Method, path)
	if _, err := io.WriteString(conn, req.String()); err != nil {
		return ex, err
	}
	br := bufio.NewReader(conn)
	tp := textproto.NewReader(br)
	statusLine, err := tp.ReadLine()
	if err != nil {
		return ex, ctxErr(ctx, err)
	}
	logf("< %s", statusLine)
	parts := strings.SplitN(statusLine, " ", 3)
	if len(parts) < 2 {
		return ex, fmt.Errorf("bad status line %q", statusLine)
	}
	if ex.status, err = strconv.Atoi(parts[1]); err != nil {
		return ex, fmt.Errorf("bad status line %q", statusLine)
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return ex, ctxErr(ctx, err)
	}
	ex.auditID = hdr.Get("Audit-Id")
	for _, k := range []string{"Content-Type", "Transfer-Encoding", "Content-Length"} {
		if v := hdr.Get(k); v != "" {
			logf("< %s: %s", k, v)
		}
	}
	if strings.EqualFold(hdr.Get("Transfer-Encoding"), "chunked") {
		var pending []byte
		for {
			line, err := tp.ReadLine()
			if err != nil {
				return ex, ctxErr(ctx, err)
			}
			sizeStr, _, _ := strings.Cut(line, ";")
			size, err := strconv.ParseInt(strings.TrimSpace(sizeStr), 16, 64)
			if err != nil {
				return ex, fmt.Errorf("bad chunk size line %q", line)
			}
			if size == 0 {
				logf("< chunk %q: size 0, the end of the body", line+"\r\n")
				return ex, nil
			}
			data := make([]byte, size)
			if _, err := io.ReadFull(br, data); err != nil {
				return ex, ctxErr(ctx, err)
			}
			if _, err := tp.ReadLine(); err != nil { // the CRLF after the data
				return ex, ctxErr(ctx, err)
			}
			logf("< chunk %q + %d bytes + \"\\r\\n\": %s", line+"\r\n", size, preview(data))
			ex.body = append(ex.body, data...)
			if stopAfter > 0 {
				before := len(ex.events)
				pending = decodeEvents(append(pending, data...), &ex.events)
				for _, ev := range ex.events[before:] {
					logf("  %s", describeEvent(ev))
				}
				if counted(ex.events) >= stopAfter {
					logf("  (%d events read: the client closes the connection)", counted(ex.events))
					return ex, nil
				}
			}
		}
	}
	var body []byte
	if cl := hdr.Get("Content-Length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil {
			return ex, fmt.Errorf("bad Content-Length %q", cl)
		}
		body = make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return ex, ctxErr(ctx, err)
		}
	} else if body, err = io.ReadAll(br); err != nil {
		return ex, ctxErr(ctx, err)
	}
	ex.body = body
	logf("< body (%d bytes): %s", len(body), preview(body))
	return ex, nil
}

// http2 makes one request over HTTP/2 with net/http. With stopAfter > 0
// it reads watch events from the stream until it has that many, then
// cancels the stream.
func (hc *httpClient) http2(ctx context.Context, a *HTTPAction, path string, stopAfter int, logf func(string, ...any)) (exchange, error) {
	var ex exchange
	protos := new(http.Protocols)
	protos.SetHTTP2(true)
	tr := &http.Transport{TLSClientConfig: hc.tls.Clone(), Protocols: protos, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var body io.Reader
	if a.Body != "" {
		body = strings.NewReader(a.Body)
	}
	u := *hc.base
	ref, err := url.Parse(path)
	if err != nil {
		return ex, err
	}
	target := u.ResolveReference(ref)
	req, err := http.NewRequestWithContext(rctx, a.Method, target.String(), body)
	if err != nil {
		return ex, err
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
		logf("< DATA (%d bytes): %s", len(b), preview(b))
		return ex, ctxErr(ctx, err)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			ex.body = append(ex.body, line...)
			before := len(ex.events)
			decodeEvents(line, &ex.events)
			logf("< DATA (%d bytes): %s", len(line), preview(line))
			for _, ev := range ex.events[before:] {
				logf("  %s", describeEvent(ev))
			}
			if counted(ex.events) >= stopAfter {
				logf("  (%d events read: the client resets the stream, the connection stays)", counted(ex.events))
				return ex, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				logf("< END_STREAM after %d events", counted(ex.events))
				return ex, nil
			}
			return ex, ctxErr(ctx, err)
		}
	}
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

// isText says whether b is UTF-8 without control characters other than
// tab and line breaks.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}
