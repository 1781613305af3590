package scenarios

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"

	"github.com/kubesim/kubesim/internal/h2wire"
)

func TestParseHTTP2Frames(t *testing.T) {
	checkParse(t, parseHTTP2Frames, []parseCase[actionRunner]{
		{name: "two paths, count by default one each", key: "http2Frames", src: "{paths: [/api/v1/pods, /api/v1/watch/nodes]}",
			want: &HTTP2FramesAction{Paths: []string{"/api/v1/pods?watch=true", "/api/v1/watch/nodes"}, Count: 2}},
		{name: "a count, a watch parameter kept", key: "http2Frames", src: `{paths: ["/api/v1/pods?watch=1"], count: 5}`,
			want: &HTTP2FramesAction{Paths: []string{"/api/v1/pods?watch=1"}, Count: 5}},
		{name: "no paths", key: "http2Frames", src: "{count: 2}", wantErr: `1:1: http2Frames: missing field "paths"`},
		{name: "an empty list", key: "http2Frames", src: "{paths: []}", wantErr: "1:9: http2Frames.paths: expected a list of 1 to 10 paths, got a list"},
		{name: "a relative path", key: "http2Frames", src: "{paths: [api]}", wantErr: `1:10: http2Frames.paths[0]: "api" must start with /`},
		{name: "count 0", key: "http2Frames", src: "{paths: [/api], count: 0}", wantErr: "1:24: http2Frames.count: 0: use 1 to 1000"},
	})
}

// TestHTTP2Frames plays two watches on one connection against a real
// cluster: each watches one Role that does not change, so each
// stream carries exactly one ADDED event, whatever the order the server
// sends them in.
func TestHTTP2Frames(t *testing.T) {
	s, err := Parse("h2.yaml", []byte(`name: h2
title: {en: Frames, zh: 帧}
summary: {en: Two watches on one connection, zh: 一个连接上的两个 watch}
cluster: {nodes: 1}
steps:
  - narration: {en: one, zh: 一}
    apply: |
      {apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: one}, rules: []}
  - narration: {en: two, zh: 二}
    apply: |
      {apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: two}, rules: []}
  - narration: {en: frames, zh: 帧}
    http2Frames:
      paths:
        - /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?fieldSelector=metadata.name%3Done
        - /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?fieldSelector=metadata.name%3Dtwo
      count: 2
    expect:
      - watchEvents: [ADDED, ADDED]
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	res := playLab(t, s).results[2]
	t.Logf("transcript:\n%s", strings.Join(res.HTTP, "\n"))
	lines := joinFrameLines(res.HTTP)
	for _, want := range []struct{ what, re string }{
		{"ALPN h2", `^\* TLS to .*the server chose "h2"$`},
		{"the client preface", `^> "PRI \* HTTP/2\.0`},
		{"the server's SETTINGS", `^< length=\d+ type=SETTINGS flags=0x0 stream=0  .*MAX_CONCURRENT_STREAMS=100`},
		{"the SETTINGS ACK sent", `^> length=0 type=SETTINGS flags=ACK stream=0$`},
		{"HEADERS sent on stream 1", `^> length=\d+ type=HEADERS flags=END_STREAM\|END_HEADERS stream=1  :method=GET :scheme=https :path=/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles\?`},
		{"HEADERS sent on stream 3", `^> length=\d+ type=HEADERS flags=END_STREAM\|END_HEADERS stream=3  `},
		{"HEADERS :status=200 on stream 1", `^< length=\d+ type=HEADERS flags=END_HEADERS stream=1  :status=200 `},
		{"HEADERS :status=200 on stream 3", `^< length=\d+ type=HEADERS flags=END_HEADERS stream=3  :status=200 `},
		{"DATA on stream 1", `^< length=\d+ type=DATA flags=0x0 stream=1  \{"type":"ADDED"`},
		{"DATA on stream 3", `^< length=\d+ type=DATA flags=0x0 stream=3  \{"type":"ADDED"`},
		{"the event of stream 1", `^  stream 1: event ADDED Role one resourceVersion \d+$`},
		{"the event of stream 3", `^  stream 3: event ADDED Role two resourceVersion \d+$`},
		{"a WINDOW_UPDATE sent", `^> length=4 type=WINDOW_UPDATE flags=0x0 stream=0  increment=\d+$`},
		{"RST_STREAM on stream 1", `^> length=4 type=RST_STREAM flags=0x0 stream=1  CANCEL$`},
		{"RST_STREAM on stream 3", `^> length=4 type=RST_STREAM flags=0x0 stream=3  CANCEL$`},
	} {
		re := regexp.MustCompile(want.re)
		if !slices.ContainsFunc(lines, re.MatchString) {
			t.Errorf("%s: no transcript line matches %s", want.what, want.re)
		}
	}
	checkHeaderBytes(t, res.HTTP)
	if got := res.Watch; !slices.Equal(got, []string{"ADDED", "ADDED"}) {
		t.Errorf("watch events %q, want [ADDED ADDED]", got)
	}
	if res.Status != 200 || !strings.HasPrefix(res.Message, "2 watches on one HTTP/2 connection: 2 events on 2 streams") {
		t.Errorf("status %d, message %q; want 200, 2 events on 2 streams", res.Status, res.Message)
	}
	// The API server traced both watches, and the step has their traces
	// (by the audit-id header of each stream's HEADERS).
	if len(res.Requests) != 2 {
		t.Fatalf("%d request traces, want the 2 watches'", len(res.Requests))
	}
	for i, tr := range res.Requests {
		if tr.Verb != "watch" || tr.Proto != "HTTP/2.0" || !strings.Contains(tr.URI, "roles") {
			t.Errorf("trace %d: verb %q proto %q uri %q, want an HTTP/2 watch of roles", i, tr.Verb, tr.Proto, tr.URI)
		}
	}
	checkLabWidth(t, res)
}

// joinFrameLines joins each frame's continuation lines ("<   ..." or
// ">   ...") onto the line before, with one space.
func joinFrameLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if len(out) > 0 && (strings.HasPrefix(l, "<   ") || strings.HasPrefix(l, ">   ")) {
			out[len(out)-1] += " " + l[4:]
			continue
		}
		out = append(out, l)
	}
	return out
}

// frameLineRE is a received frame's first line: its header's fields.
var frameLineRE = regexp.MustCompile(`^< length=(\d+) type=(\S+) flags=(\S+) stream=(\d+)`)

// checkHeaderBytes checks the header bytes shown under received frames:
// the hex, decoded here by hand, says what the frame's own line says and
// what the line after it prints; a HEADERS and a DATA frame have them.
func checkHeaderBytes(t *testing.T, lines []string) {
	t.Helper()
	var frame []string
	shown := map[string]bool{}
	for i, l := range lines {
		if m := frameLineRE.FindStringSubmatch(l); m != nil {
			frame = m
			continue
		}
		hexPart, ok := strings.CutPrefix(l, "<    9 header bytes: ")
		if !ok {
			continue
		}
		b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(hexPart))
		if err != nil || len(b) != 9 || frame == nil || i+1 == len(lines) {
			t.Errorf("line %q: want 9 bytes in hex, after a received frame's line and before its fields", l)
			continue
		}
		length := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		typ, flags := http2.FrameType(b[3]), http2.Flags(b[4])
		stream := int(b[5]&0x7f)<<24 | int(b[6])<<16 | int(b[7])<<8 | int(b[8])
		fh := http2.FrameHeader{Type: typ, Flags: flags}
		got := []string{strconv.Itoa(length), typ.String(), h2wire.Flags(fh), strconv.Itoa(stream)}
		if !slices.Equal(got, frame[1:]) {
			t.Errorf("header bytes % x decode to %q; the frame's line says %q", b, got, frame[1:])
		}
		fields := fmt.Sprintf("<    = length %d | type %d %s | flags 0x%x | R=%d stream=%d", length, b[3], typ, b[4], b[5]>>7, stream)
		if lines[i+1] != fields {
			t.Errorf("after % x: %q, want %q", b, lines[i+1], fields)
		}
		shown[typ.String()] = true
	}
	if !shown["HEADERS"] || !shown["DATA"] {
		t.Errorf("header bytes shown for %v; want a HEADERS and a DATA frame among them", shown)
	}
}
