package scenarios

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/kubesim/kubesim/internal/h2wire"
)

// HTTP2FramesAction opens one raw HTTP/2 connection to the API server
// (TLS with ALPN h2, the step's user's client certificate), opens one
// watch stream per path on it (streams 1, 3, ...) and logs every frame
// both ways until Count watch events have arrived in all, then resets
// its streams and closes the connection.
type HTTP2FramesAction struct {
	Paths []string
	Count int
}

var _ actionRunner = (*HTTP2FramesAction)(nil)

// http2FramesDoc is http2Frames as written.
type http2FramesDoc struct {
	Paths []str    `yaml:"paths" load:"required" expected:"a list of 1 to 10 paths"`
	Count *integer `yaml:"count"`
}

// frameLineWidth is the width a frame line is cut to: the TUI's 80
// columns less the plain printer's indent.
const frameLineWidth = 78

func (a *HTTP2FramesAction) Kind() string { return "http2Frames" }
func (a *HTTP2FramesAction) String() string {
	return fmt.Sprintf("HTTP/2 frames of %d watches on one connection (%s), %d events", len(a.Paths), strings.Join(a.Paths, ", "), a.Count)
}

// parseHTTP2Frames reads {paths, count}: 1 to 10 paths, each starting
// with / (watch=true is added to a path's query when it has no watch
// parameter and is not under a /watch/ prefix); count 1 to 1000, by
// default one event per path.
func parseHTTP2Frames(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d http2FramesDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	if pn := valueOf(n, "paths"); len(d.Paths) == 0 || len(d.Paths) > 10 {
		return nil, errAt(pn, "expected a list of 1 to 10 paths, got %s", describe(pn))
	}
	a := &HTTP2FramesAction{}
	for i, s := range d.Paths {
		p := string(s)
		if !strings.HasPrefix(p, "/") {
			return nil, errAt(valueOf(n, "paths").Content[i], "%q must start with /", p)
		}
		if !hasQuery(p, "watch") && !strings.Contains(p, "/watch/") {
			p = withQuery(p, "watch", "true")
		}
		a.Paths = append(a.Paths, p)
	}
	a.Count = len(a.Paths)
	if c := d.Count; c != nil {
		if *c < 1 || *c > 1000 {
			return nil, errAt(valueOf(n, "count"), "%d: use 1 to 1000", *c)
		}
		a.Count = int(*c)
	}
	return a, nil
}

// h2Run is one run of an http2Frames action.
type h2Run struct {
	a    *HTTP2FramesAction
	p    *player
	hc   *httpClient
	conn net.Conn
	fr   *http2.Framer
	// rec keeps the bytes the framer reads, so that the first frame of
	// each type the server sends is shown with its header bytes as they
	// came (shownTypes: the types shown so far).
	rec        *h2wire.Recorder
	shownTypes map[http2.FrameType]bool
	res        StepResult
	// bufs are the bytes of each stream not yet decoded into events.
	bufs             map[uint32][]byte
	received, sent   int
	streamsOpen      int
	lastStatus       string
	streamsWithEvent map[uint32]bool
	// ended are the streams the server ended (END_STREAM): they are
	// closed and are not reset.
	ended map[uint32]bool
}

// run dials, opens the watches and reads frames until Count events
// arrived or ctx ended; it resets the streams and closes the connection
// either way. The result's Watch has the events' types in the order
// their DATA frames came, whatever the stream.
func (a *HTTP2FramesAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	hc, err := p.httpClientAs(user)
	if err != nil {
		return StepResult{}, err
	}
	r := &h2Run{a: a, p: p, hc: hc, bufs: map[uint32][]byte{}, streamsWithEvent: map[uint32]bool{}, ended: map[uint32]bool{}, shownTypes: map[http2.FrameType]bool{}}
	if err := r.dial(ctx); err != nil {
		return r.res, err
	}
	defer r.conn.Close()
	stop := context.AfterFunc(ctx, func() { r.conn.SetDeadline(time.Now()) })
	err = r.start()
	if err == nil {
		err = r.readUntilCount()
	}
	stopped := !stop()
	if stopped || ctx.Err() != nil {
		err = fmt.Errorf("http2Frames: %d of %d watch events before the step's time ran out: %w", len(r.res.Watch), a.Count, ctx.Err())
	}
	r.finish(err)
	return r.res, err
}

// logf adds a line to the transcript.
func (r *h2Run) logf(format string, args ...any) { addTranscript(&r.res, format, args...) }

// dial opens the TLS connection offering only h2 and logs what ALPN
// agreed on.
func (r *h2Run) dial(ctx context.Context) error {
	tc := r.hc.tls.Clone()
	tc.NextProtos = []string{"h2"}
	if tc.ServerName == "" {
		tc.ServerName = r.hc.base.Hostname()
	}
	d := tls.Dialer{Config: tc}
	c, err := d.DialContext(ctx, "tcp", r.hc.base.Host)
	if err != nil {
		return fmt.Errorf("http2Frames: dial %s: %w", r.hc.base.Host, err)
	}
	proto := c.(*tls.Conn).ConnectionState().NegotiatedProtocol
	r.logf("* TLS to %s, ALPN offering h2: the server chose %q", r.hc.base.Host, proto)
	if proto != "h2" {
		c.Close()
		return fmt.Errorf("http2Frames: the server chose ALPN protocol %q, not h2", proto)
	}
	r.conn = c
	r.rec = h2wire.NewRecorder(c)
	r.fr = http2.NewFramer(h2wire.NewTap(c, r.logSent), r.rec)
	r.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	return nil
}

// logSent logs a frame the client sent.
func (r *h2Run) logSent(f http2.Frame) {
	r.sent++
	r.logFrame(">", f)
}

// logFrame logs f, sent (dir ">") or received ("<"), on as many lines
// as its fields need.
func (r *h2Run) logFrame(dir string, f http2.Frame) {
	for _, l := range h2wire.Lines(dir, f, frameLineWidth) {
		r.logf("%s", l)
	}
}

// start writes the client preface, the client's SETTINGS and one HEADERS
// frame per path, each on a new odd stream.
func (r *h2Run) start() error {
	if _, err := io.WriteString(r.conn, http2.ClientPreface); err != nil {
		return err
	}
	r.logf("> %q (the client preface, %d bytes)", http2.ClientPreface, len(http2.ClientPreface))
	if err := r.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0}); err != nil {
		return err
	}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for i, path := range r.a.Paths {
		hb.Reset()
		fields := []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "https"},
			{Name: ":path", Value: path}, {Name: ":authority", Value: r.hc.base.Host},
			{Name: "accept", Value: "application/json"}, {Name: "user-agent", Value: ActionUserAgent}}
		if r.hc.token != "" {
			fields = append(fields, hpack.HeaderField{Name: "authorization", Value: "Bearer " + r.hc.token, Sensitive: true})
		}
		for _, hf := range fields {
			if err := enc.WriteField(hf); err != nil {
				return err
			}
		}
		id := uint32(2*i + 1)
		err := r.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
		if err != nil {
			return err
		}
		r.streamsOpen++
	}
	return nil
}

// readUntilCount reads and logs frames, answering them as a client must,
// until Count events arrived.
func (r *h2Run) readUntilCount() error {
	for len(r.res.Watch) < r.a.Count {
		f, err := r.fr.ReadFrame()
		raw := r.rec.Take()
		if err != nil {
			return fmt.Errorf("http2Frames: reading a frame: %w", err)
		}
		r.received++
		r.logFrame("<", f)
		if err := r.logHeaderBytes(raw, f); err != nil {
			return err
		}
		if err := r.answer(f); err != nil {
			return err
		}
	}
	r.logf("(%d events read: the client resets its streams and closes the connection)", len(r.res.Watch))
	return nil
}

// logHeaderBytes logs, under the first frame of each type the server
// sent, the 9 bytes its header came in, read off the connection (raw are
// the bytes the framer read for f), and what they decode to. Bytes that
// do not say what the framer parsed are an error.
func (r *h2Run) logHeaderBytes(raw []byte, f http2.Frame) error {
	h, err := h2wire.HeaderOf(raw)
	if err != nil {
		return fmt.Errorf("http2Frames: %w", err)
	}
	if !h.Matches(f.Header()) {
		return fmt.Errorf("http2Frames: header bytes % x read for the frame %s", h[:], h2wire.Header(f.Header()))
	}
	if r.shownTypes[h.Type()] {
		return nil
	}
	r.shownTypes[h.Type()] = true
	for _, l := range h2wire.HexLines("<", h) {
		r.logf("%s", l)
	}
	return nil
}

// answer does what a client does on f: ACKs the server's SETTINGS and
// PINGs, gives back the flow-control window a DATA frame used (on the
// connection and on its stream) and decodes the watch events in it.
func (r *h2Run) answer(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if !f.IsAck() {
			return r.fr.WriteSettingsAck()
		}
	case *http2.PingFrame:
		if !f.IsAck() {
			return r.fr.WritePing(true, f.Data)
		}
	case *http2.MetaHeadersFrame:
		r.lastStatus = f.PseudoValue("status")
		// The step shows the API server's trace of each watch, as it
		// does for the http action's requests.
		for _, hf := range f.RegularFields() {
			if hf.Name == "audit-id" {
				r.p.noteRequest(hf.Value)
			}
		}
	case *http2.DataFrame:
		return r.data(f)
	case *http2.RSTStreamFrame:
		return fmt.Errorf("http2Frames: the server reset stream %d: %s", f.StreamID, f.ErrCode)
	case *http2.GoAwayFrame:
		return fmt.Errorf("http2Frames: the server sent GOAWAY: %s", f.ErrCode)
	}
	return nil
}

// data handles a DATA frame: window updates, then its events.
func (r *h2Run) data(f *http2.DataFrame) error {
	id := f.StreamID
	if n := f.Length; n > 0 {
		if err := r.fr.WriteWindowUpdate(0, n); err != nil {
			return err
		}
		if !f.StreamEnded() {
			if err := r.fr.WriteWindowUpdate(id, n); err != nil {
				return err
			}
		}
	}
	var evs []watchEvent
	r.bufs[id] = decodeEvents(append(r.bufs[id], f.Data()...), &evs)
	for _, ev := range evs {
		r.res.Watch = append(r.res.Watch, ev.Type)
		r.streamsWithEvent[id] = true
		r.logf("  stream %d: %s", id, describeEvent(ev))
	}
	if f.StreamEnded() {
		r.ended[id] = true
		r.streamsOpen--
		if r.streamsOpen == 0 && len(r.res.Watch) < r.a.Count {
			return errors.New("http2Frames: the server ended every stream")
		}
	}
	return nil
}

// finish resets the streams with RST_STREAM CANCEL (on a connection still
// usable) and writes the summary.
func (r *h2Run) finish(err error) {
	r.conn.SetDeadline(time.Now().Add(5 * time.Second))
	for i := range r.a.Paths {
		id := uint32(2*i + 1)
		if r.ended[id] {
			continue
		}
		if r.fr.WriteRSTStream(id, http2.ErrCodeCancel) != nil {
			break
		}
	}
	r.conn.Close()
	r.logf("* connection closed")
	if r.lastStatus != "" {
		r.res.Status, _ = strconv.Atoi(r.lastStatus)
	}
	r.res.Message = fmt.Sprintf("%d watches on one HTTP/2 connection: %d events on %d streams, %d frames received, %d sent",
		len(r.a.Paths), len(r.res.Watch), len(r.streamsWithEvent), r.received, r.sent)
	if err != nil {
		r.res.Message += ": " + err.Error()
	}
}
