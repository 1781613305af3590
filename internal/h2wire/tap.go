package h2wire

import (
	"bytes"
	"io"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Tap is an io.Writer for an http2.Framer that writes each frame on to W
// and then hands it, parsed back (HEADERS with their fields decoded), to
// Sent. It relies on the Framer writing each frame with one Write call,
// as it does. Bytes written that are not frames (the client preface)
// must go to W directly.
type Tap struct {
	W    io.Writer
	Sent func(http2.Frame)

	buf    bytes.Buffer
	reader *http2.Framer
}

// NewTap returns a Tap writing to w and calling sent for each frame.
func NewTap(w io.Writer, sent func(http2.Frame)) *Tap {
	t := &Tap{W: w, Sent: sent}
	t.reader = http2.NewFramer(nil, &t.buf)
	// The decoder's table follows the encoder's: it sees every header
	// block the encoder made, in order.
	t.reader.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	return t
}

// Write writes p to W; when that succeeds and p is a frame, it calls Sent
// with it.
func (t *Tap) Write(p []byte) (int, error) {
	n, err := t.W.Write(p)
	if err != nil {
		return n, err
	}
	t.buf.Write(p)
	for t.buf.Len() >= 9 {
		f, ferr := t.reader.ReadFrame()
		if ferr != nil {
			t.buf.Reset()
			break
		}
		if t.Sent != nil {
			t.Sent(f)
		}
	}
	return n, nil
}
