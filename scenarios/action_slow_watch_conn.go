package scenarios

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/kubesim/kubesim/internal/h2wire"
)

// slowConn is the slow watcher's HTTP/2 connection, spoken frame by frame
// (as http2Frames does): a goroutine reads the frames and hands them over
// as copies; every write happens on the action's goroutine.
type slowConn struct {
	hc     *httpClient
	conn   net.Conn
	fr     *http2.Framer
	frames chan slowFrame
	// logSent, if set, is told about each frame the client writes.
	logSent func(http2.Frame)
}

// slowFrame is what the action needs of a frame it received, copied out
// of the Framer's buffers.
type slowFrame struct {
	hdr     http2.FrameHeader
	lines   []string // as h2wire lays it out
	data    []byte   // a DATA frame's payload
	status  string   // a HEADERS frame's :status
	auditID string   // and its audit-id
	ack     bool     // a SETTINGS or PING ACK
	ping    [8]byte
	err     error // reading failed: the last frame
}

// dialSlow opens TLS with ALPN h2 only.
func dialSlow(ctx context.Context, hc *httpClient) (*slowConn, string, error) {
	tc := hc.tls.Clone()
	tc.NextProtos = []string{"h2"}
	if tc.ServerName == "" {
		tc.ServerName = hc.base.Hostname()
	}
	d := tls.Dialer{Config: tc}
	c, err := d.DialContext(ctx, "tcp", hc.base.Host)
	if err != nil {
		return nil, "", fmt.Errorf("slowWatch: dial %s: %w", hc.base.Host, err)
	}
	proto := c.(*tls.Conn).ConnectionState().NegotiatedProtocol
	if proto != "h2" {
		c.Close()
		return nil, proto, fmt.Errorf("slowWatch: the server chose ALPN protocol %q, not h2", proto)
	}
	sc := &slowConn{hc: hc, conn: c, frames: make(chan slowFrame, 64)}
	sc.fr = http2.NewFramer(h2wire.NewTap(c, func(f http2.Frame) {
		if sc.logSent != nil {
			sc.logSent(f)
		}
	}), c)
	sc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	return sc, proto, nil
}

// start writes the preface and the client's SETTINGS (no push, window
// bytes per stream), then reads frames until the connection ends.
func (sc *slowConn) start(window uint32) error {
	if _, err := io.WriteString(sc.conn, http2.ClientPreface); err != nil {
		return err
	}
	err := sc.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: window})
	if err != nil {
		return err
	}
	go sc.read()
	return nil
}

// read hands every frame to frames; the last one carries the error that
// ended the reading.
func (sc *slowConn) read() {
	defer close(sc.frames)
	for {
		f, err := sc.fr.ReadFrame()
		if err != nil {
			sc.frames <- slowFrame{err: err}
			return
		}
		sf := slowFrame{hdr: f.Header(), lines: h2wire.Lines("<", f, frameLineWidth)}
		switch f := f.(type) {
		case *http2.DataFrame:
			sf.data = bytes.Clone(f.Data())
		case *http2.MetaHeadersFrame:
			sf.status = f.PseudoValue("status")
			for _, hf := range f.RegularFields() {
				if hf.Name == "audit-id" {
					sf.auditID = hf.Value
				}
			}
		case *http2.SettingsFrame:
			sf.ack = f.IsAck()
		case *http2.PingFrame:
			sf.ack, sf.ping = f.IsAck(), f.Data
		}
		sc.frames <- sf
	}
}

// answer ACKs a SETTINGS or PING the server sent.
func (sc *slowConn) answer(f slowFrame) error {
	switch {
	case f.ack:
		return nil
	case f.hdr.Type == http2.FrameSettings:
		return sc.fr.WriteSettingsAck()
	case f.hdr.Type == http2.FramePing:
		return sc.fr.WritePing(true, f.ping)
	}
	return nil
}

// get opens stream id with a GET of path.
func (sc *slowConn) get(id uint32, path string) error {
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	fields := []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "https"},
		{Name: ":path", Value: path}, {Name: ":authority", Value: sc.hc.base.Host},
		{Name: "accept", Value: "application/json"}, {Name: "user-agent", Value: ActionUserAgent}}
	if sc.hc.token != "" {
		fields = append(fields, hpack.HeaderField{Name: "authorization", Value: "Bearer " + sc.hc.token, Sensitive: true})
	}
	for _, hf := range fields {
		if err := enc.WriteField(hf); err != nil {
			return err
		}
	}
	return sc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
}
