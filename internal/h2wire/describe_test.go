package h2wire

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestTapDescribe writes frames through a Tap with a Framer and checks
// how each is described, as sent.
func TestTapDescribe(t *testing.T) {
	var out bytes.Buffer
	var got []string
	fr := http2.NewFramer(NewTap(&out, func(f http2.Frame) { got = append(got, Describe(f)) }), nil)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, hf := range []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":path", Value: "/api"}, {Name: "authorization", Value: "Bearer secret"}} {
		if err := enc.WriteField(hf); err != nil {
			t.Fatal(err)
		}
	}
	for _, write := range []func() error{
		func() error {
			return fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65535})
		},
		fr.WriteSettingsAck,
		func() error {
			return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
		},
		func() error { return fr.WriteData(3, false, []byte("{\"type\":\"ADDED\"}\n")) },
		func() error { return fr.WriteWindowUpdate(0, 17) },
		func() error { return fr.WritePing(true, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}) },
		func() error { return fr.WriteRSTStream(3, http2.ErrCodeCancel) },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"length=12 type=SETTINGS flags=0x0 stream=0  MAX_CONCURRENT_STREAMS=100 INITIAL_WINDOW_SIZE=65535",
		"length=0 type=SETTINGS flags=ACK stream=0",
		"length=" + strconv.Itoa(hb.Len()) + " type=HEADERS flags=END_STREAM|END_HEADERS stream=1  :method=GET :path=/api authorization=(hidden)",
		`length=17 type=DATA flags=0x0 stream=3  {"type":"ADDED"}`,
		"length=4 type=WINDOW_UPDATE flags=0x0 stream=0  increment=17",
		"length=8 type=PING flags=ACK stream=0  data=0102030405060708",
		"length=4 type=RST_STREAM flags=0x0 stream=3  CANCEL",
	}
	if len(got) != len(want) {
		t.Fatalf("described %d frames %q, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d: got %q, want %q", i, got[i], want[i])
		}
	}
	// The frames reached the writer too, unchanged: read them back.
	rd := http2.NewFramer(nil, &out)
	for i := range want {
		if _, err := rd.ReadFrame(); err != nil {
			t.Fatalf("frame %d as written: %v", i, err)
		}
	}
}

func TestFit(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"ab中文", 6, "ab中文"},
		{"ab中文x", 6, "ab中…"},
	} {
		if got := Fit(tt.s, tt.width); got != tt.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

// TestLines: a SETTINGS frame's settings wrap onto continuation lines;
// a DATA frame stays one line, cut.
func TestLines(t *testing.T) {
	var out bytes.Buffer
	var got [][]string
	fr := http2.NewFramer(NewTap(&out, func(f http2.Frame) { got = append(got, Lines(">", f, 60)) }), nil)
	if err := fr.WriteSettings(http2.Setting{ID: http2.SettingMaxFrameSize, Val: 262144}, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65535}); err != nil {
		t.Fatal(err)
	}
	var hb bytes.Buffer
	if err := hpack.NewEncoder(&hb).WriteField(hpack.HeaderField{Name: ":path", Value: "/api/v1/namespaces/default/pods?watch=true&fieldSelector=x"}); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteData(1, false, []byte(`{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"web"}}}`)); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"> length=18 type=SETTINGS flags=0x0 stream=0",
			">   MAX_FRAME_SIZE=262144 MAX_CONCURRENT_STREAMS=100",
			">   INITIAL_WINDOW_SIZE=65535"},
		{"> length=" + strconv.Itoa(hb.Len()) + " type=HEADERS flags=END_HEADERS stream=1",
			">   :path=/api/v1/namespaces/default/pods?watch=true&fieldS…"},
		{`> length=66 type=DATA flags=0x0 stream=1  {"type":"ADDED","…`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if strings.Join(got[i], "\n") != strings.Join(want[i], "\n") {
			t.Errorf("frame %d:\ngot  %q\nwant %q", i, got[i], want[i])
		}
	}
}
