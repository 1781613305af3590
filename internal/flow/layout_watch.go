package flow

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// watch lays out a watch event as the API server wrote it to a watcher:
// the event's type and resourceVersion, the watcher and its request, the
// frame. Brief shows the frame's start; Full shows the whole frame as it
// went on the wire: inside an HTTP/1.1 chunk (its size line and CRLF
// around it) or HTTP/2 DATA frames, as text when it is text, else as a
// hex dump fitted to l.Width.
func (l Layout) watch(ev Event, _ Context) []Line {
	w := ev.Watch
	if l.Form == Brief {
		return []Line{
			line(RoleHeading, 0, l.printf("watch_event", w.Type, w.ResourceVersion)),
			field(l.printf("watch_to", w.User, w.URI, w.Proto, w.ContentType)),
			line(RoleField, 4, l.frameSummary(w)),
			line(RoleNote, 4, l.onTheWire(w)),
		}
	}
	out := []Line{
		line(RoleHeading, 2, fmt.Sprintf("%s  resourceVersion %s  → %s", w.Type, w.ResourceVersion, w.User)),
		cut(RoleField, fmt.Sprintf("GET %s  %s", w.URI, w.Proto)),
		line(RoleField, 2, l.printf("type_frame", w.ContentType, len(w.Frame))),
	}
	chunked := w.Proto == "HTTP/1.1"
	if chunked {
		out = append(out, line(RoleNote, 0, l.word("chunk")), line(RoleFraming, 0, fmt.Sprintf("%x\\r\\n", len(w.Frame))))
	} else {
		out = append(out, line(RoleNote, 0, l.printf("h2_data", len(w.Frame))))
	}
	if p, ok := splitFrame(w.ContentType, w.Frame); ok {
		out = append(out, line(RoleNote, 2, l.printf("pb_prefix", p.length)), line(RoleNote, 2, l.protobufEvent(p)))
	}
	if textFrame(w.Frame) {
		out = append(out, cut(RoleField, strings.ReplaceAll(string(w.Frame), "\n", "\\n")))
	} else {
		for _, row := range hexDump(w.Frame, l.Width) {
			out = append(out, Line{Role: RoleField, Text: row, Fit: FitNone})
		}
	}
	if chunked {
		out = append(out, line(RoleFraming, 0, "\\r\\n"))
	}
	return out
}

// textFrame reports whether a frame reads as text: UTF-8 without
// control characters but tabs and its final line break (a JSON line).
func textFrame(frame []byte) bool {
	return utf8.Valid(frame) && !strings.ContainsFunc(strings.TrimRight(string(frame), "\n"), func(r rune) bool {
		return r < 0x20 && r != '\t'
	})
}

// hexDump lays out b as rows of offset, hex bytes and printable
// characters, as many bytes a row as fit in width (16, or 8).
func hexDump(b []byte, width int) []string {
	n := 16
	if width < 4+2+3*16+2+16 {
		n = 8
	}
	var out []string
	for off := 0; off < len(b); off += n {
		row := b[off:min(off+n, len(b))]
		var hx, tx strings.Builder
		for i := 0; i < n; i++ {
			if i < len(row) {
				fmt.Fprintf(&hx, "%02x ", row[i])
				c := row[i]
				if c < 0x20 || c > 0x7e {
					c = '.'
				}
				tx.WriteByte(c)
			} else {
				hx.WriteString("   ")
			}
		}
		out = append(out, fmt.Sprintf("%04x  %s %s", off, hx.String(), tx.String()))
	}
	return out
}

// frameSummary is a frame in one line, each part named: for protobuf, the
// length prefix and the WatchEvent after it; for JSON, the line.
func (l Layout) frameSummary(w *WatchDelivery) string {
	p, ok := splitFrame(w.ContentType, w.Frame)
	if !ok {
		return l.printf("frame_bytes", len(w.Frame), Preview(w.Frame))
	}
	return l.printf("frame_pb", len(w.Frame), fmt.Sprintf("% x", w.Frame[:4]), p.length, l.protobufEvent(p))
}

// protobufEvent describes the WatchEvent of a protobuf frame.
func (l Layout) protobufEvent(p frameParts) string {
	if p.magic && p.kind != "" {
		return l.printf("pb_event_envelope", p.typ, p.objectLen, p.apiVersion, p.kind)
	}
	return l.printf("pb_event", p.typ, p.objectLen)
}

// onTheWire says what the HTTP layer adds around the frame: an HTTP/1.1
// chunk's size line and CRLF, or HTTP/2 DATA frames whose headers the
// API server never sees.
func (l Layout) onTheWire(w *WatchDelivery) string {
	if w.Proto == "HTTP/1.1" {
		return l.printf("wire_chunk", fmt.Sprintf("%x\\r\\n", len(w.Frame)))
	}
	return l.printf("wire_h2", len(w.Frame))
}
