package h2wire

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/http2"
)

// HeaderLen is the size of an HTTP/2 frame header (RFC 9113 section 4.1).
const HeaderLen = 9

// Recorder is an io.Reader for an http2.Framer that keeps every byte read
// through it, so that after ReadFrame the bytes that frame came in (its
// header first) can be had with Take. It reads nothing ahead: each Read
// asks R for at most len(p) bytes, as the Framer does with io.ReadFull
// for a header and then for a payload. Not safe for concurrent use.
type Recorder struct {
	R   io.Reader
	buf []byte
}

// NewRecorder returns a Recorder reading from r.
func NewRecorder(r io.Reader) *Recorder { return &Recorder{R: r} }

// Read reads from R and keeps what it read.
func (rc *Recorder) Read(p []byte) (int, error) {
	n, err := rc.R.Read(p)
	rc.buf = append(rc.buf, p[:n]...)
	return n, err
}

// Take returns the bytes read since the last Take, and forgets them.
func (rc *Recorder) Take() []byte {
	b := rc.buf
	rc.buf = nil
	return b
}

// RawHeader is a frame header's 9 bytes as they came on the wire: 24 bits
// of payload length, 8 of type, 8 of flags, then one reserved bit R and
// 31 bits of stream id, all big-endian.
type RawHeader [HeaderLen]byte

// ErrShortHeader: fewer than HeaderLen bytes were read for a frame.
var ErrShortHeader = errors.New("h2wire: fewer than 9 bytes read for a frame header")

// HeaderOf returns the first HeaderLen bytes of raw, the bytes one frame
// came in.
func HeaderOf(raw []byte) (RawHeader, error) {
	var h RawHeader
	if len(raw) < HeaderLen {
		return h, ErrShortHeader
	}
	copy(h[:], raw)
	return h, nil
}

// Length is the payload's length, bytes 0 to 2.
func (h RawHeader) Length() uint32 { return uint32(h[0])<<16 | uint32(h[1])<<8 | uint32(h[2]) }

// Type is byte 3.
func (h RawHeader) Type() http2.FrameType { return http2.FrameType(h[3]) }

// Flags is byte 4.
func (h RawHeader) Flags() http2.Flags { return http2.Flags(h[4]) }

// Reserved is the first bit of byte 5, R, which a sender leaves 0.
func (h RawHeader) Reserved() uint8 { return h[5] >> 7 }

// StreamID is the 31 bits after R.
func (h RawHeader) StreamID() uint32 {
	return (uint32(h[5])&0x7f)<<24 | uint32(h[6])<<16 | uint32(h[7])<<8 | uint32(h[8])
}

// Matches reports whether h says what fh, the header a Framer parsed,
// says.
func (h RawHeader) Matches(fh http2.FrameHeader) bool {
	return h.Length() == fh.Length && h.Type() == fh.Type && h.Flags() == fh.Flags && h.StreamID() == fh.StreamID
}

// HexLines is h as two lines, each starting with dir and four spaces: its
// bytes in hex, grouped by field (length | type | flags | R and stream
// id), and the fields they decode to.
func HexLines(dir string, h RawHeader) []string {
	return []string{
		fmt.Sprintf("%s    9 header bytes: % x | %02x | %02x | % x", dir, h[0:3], h[3], h[4], h[5:9]),
		fmt.Sprintf("%s    = length %d | type %d %s | flags 0x%x | R=%d stream=%d",
			dir, h.Length(), uint8(h.Type()), h.Type(), uint8(h.Flags()), h.Reserved(), h.StreamID()),
	}
}
