package h2wire

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestRecorderKeepsFrameBytes writes frames with a Framer and reads them
// back with a Framer over a Recorder: the bytes each ReadFrame read are
// the frame's header and payload, and the header decodes to the header
// the Framer returned, as HexLines prints it.
func TestRecorderKeepsFrameBytes(t *testing.T) {
	var wire bytes.Buffer
	w := http2.NewFramer(&wire, nil)
	var hb bytes.Buffer
	if err := hpack.NewEncoder(&hb).WriteField(hpack.HeaderField{Name: ":status", Value: "200"}); err != nil {
		t.Fatal(err)
	}
	for _, write := range []func() error{
		func() error { return w.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}) },
		func() error {
			return w.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: hb.Bytes(), EndHeaders: true})
		},
		func() error { return w.WriteData(3, false, []byte(`{"type":"ADDED"}`+"\n")) },
		func() error { return w.WriteData(70000, true, bytes.Repeat([]byte("x"), 300)) },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	sent := bytes.Clone(wire.Bytes())
	rec := NewRecorder(&wire)
	r := http2.NewFramer(nil, rec)
	r.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	var got []byte
	for range 4 {
		f, err := r.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		raw := rec.Take()
		got = append(got, raw...)
		fh := f.Header()
		if len(raw) != HeaderLen+int(fh.Length) {
			t.Errorf("%s: %d bytes read, want 9 + %d", Header(fh), len(raw), fh.Length)
		}
		h, err := HeaderOf(raw)
		if err != nil || !h.Matches(fh) {
			t.Errorf("%s: header bytes % x (%v) do not match it", Header(fh), h[:], err)
		}
		checkHexLines(t, HexLines("<", h), fh)
	}
	if !bytes.Equal(got, sent) {
		t.Errorf("the recorder kept % x, want the bytes written % x", got, sent)
	}
}

// checkHexLines decodes the hex of lines[0] by hand and checks it
// against lines[1] and fh.
func checkHexLines(t *testing.T, lines []string, fh http2.FrameHeader) {
	t.Helper()
	hexPart, ok := strings.CutPrefix(lines[0], "<    9 header bytes: ")
	if !ok {
		t.Fatalf("line %q: want it to start with the 9 header bytes", lines[0])
	}
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(hexPart))
	if err != nil || len(b) != 9 {
		t.Fatalf("line %q: %d bytes, %v: want 9 in hex", lines[0], len(b), err)
	}
	length := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
	stream := int(b[5]&0x7f)<<24 | int(b[6])<<16 | int(b[7])<<8 | int(b[8])
	if uint32(length) != fh.Length || http2.FrameType(b[3]) != fh.Type || http2.Flags(b[4]) != fh.Flags || uint32(stream) != fh.StreamID {
		t.Errorf("bytes % x decode to length %d type %d flags %d stream %d; the frame is %s", b, length, b[3], b[4], stream, Header(fh))
	}
	want := "<    = length " + strconv.Itoa(length) + " | type " + strconv.Itoa(int(b[3])) + " " + fh.Type.String() +
		" | flags 0x" + strconv.FormatInt(int64(b[4]), 16) + " | R=" + strconv.Itoa(int(b[5]>>7)) + " stream=" + strconv.Itoa(stream)
	if lines[1] != want {
		t.Errorf("fields line %q, want %q", lines[1], want)
	}
}

// TestHexLinesByHand checks HexLines on header bytes written by hand,
// the reserved bit set in one.
func TestHexLinesByHand(t *testing.T) {
	for _, tc := range []struct {
		raw  RawHeader
		want [2]string
	}{
		{RawHeader{0x00, 0x00, 0x2b, 0x01, 0x04, 0x00, 0x00, 0x00, 0x01},
			[2]string{"<    9 header bytes: 00 00 2b | 01 | 04 | 00 00 00 01", "<    = length 43 | type 1 HEADERS | flags 0x4 | R=0 stream=1"}},
		{RawHeader{0x00, 0x40, 0x00, 0x00, 0x01, 0x80, 0x00, 0x01, 0x03},
			[2]string{"<    9 header bytes: 00 40 00 | 00 | 01 | 80 00 01 03", "<    = length 16384 | type 0 DATA | flags 0x1 | R=1 stream=259"}},
	} {
		got := HexLines("<", tc.raw)
		if got[0] != tc.want[0] || got[1] != tc.want[1] {
			t.Errorf("HexLines(% x) = %q, want %q", tc.raw[:], got, tc.want)
		}
	}
	if _, err := HeaderOf([]byte{0, 0, 1}); err != ErrShortHeader {
		t.Errorf("HeaderOf of 3 bytes: %v, want ErrShortHeader", err)
	}
}
