package h2wire

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/http2"
)

// flagNames are the flags each frame type defines (RFC 9113 section 6),
// in the order Describe lists them.
var flagNames = map[http2.FrameType][]struct {
	flag http2.Flags
	name string
}{
	http2.FrameData:         {{http2.FlagDataEndStream, "END_STREAM"}, {http2.FlagDataPadded, "PADDED"}},
	http2.FrameHeaders:      {{http2.FlagHeadersEndStream, "END_STREAM"}, {http2.FlagHeadersEndHeaders, "END_HEADERS"}, {http2.FlagHeadersPadded, "PADDED"}, {http2.FlagHeadersPriority, "PRIORITY"}},
	http2.FrameSettings:     {{http2.FlagSettingsAck, "ACK"}},
	http2.FramePing:         {{http2.FlagPingAck, "ACK"}},
	http2.FrameContinuation: {{http2.FlagContinuationEndHeaders, "END_HEADERS"}},
}

// Flags names the flags set in h for its type, joined by "|" ("0x0" when
// none is; unknown bits in hex).
func Flags(h http2.FrameHeader) string {
	var names []string
	rest := h.Flags
	for _, f := range flagNames[h.Type] {
		if h.Flags.Has(f.flag) {
			names = append(names, f.name)
			rest &^= f.flag
		}
	}
	if rest != 0 {
		names = append(names, fmt.Sprintf("0x%x", uint8(rest)))
	}
	if len(names) == 0 {
		return "0x0"
	}
	return strings.Join(names, "|")
}

// Header is the frame header as one string:
// "length=N type=T flags=F stream=S".
func Header(h http2.FrameHeader) string {
	return fmt.Sprintf("length=%d type=%s flags=%s stream=%d", h.Length, h.Type, Flags(h), h.StreamID)
}

// Describe is f in one line: its header, two spaces, and a summary of
// its payload (see Items), not shortened.
func Describe(f http2.Frame) string {
	s := Header(f.Header())
	if items, _ := Items(f); len(items) > 0 {
		s += "  " + strings.Join(items, " ")
	}
	return s
}

// Lines is f as lines at most width columns wide, each starting with dir
// ("<" or ">"): the header, then the payload's items, as many on a line
// as fit, continuation lines indented by three spaces after dir. A DATA
// frame's bytes are one item, cut to fit the first line.
func Lines(dir string, f http2.Frame, width int) []string {
	items, wrap := Items(f)
	line := dir + " " + Header(f.Header())
	if len(items) == 0 {
		return []string{Fit(line, width)}
	}
	if !wrap {
		return []string{Fit(line+"  "+strings.Join(items, " "), width)}
	}
	var out []string
	sep := "  "
	for _, it := range items {
		if runeWidth(line)+len(sep)+runeWidth(it) > width && line != dir+"   " {
			out = append(out, Fit(line, width))
			line, sep = dir+"   ", ""
		}
		line += sep + it
		sep = " "
	}
	return append(out, Fit(line, width))
}

// Items summarizes f's payload: SETTINGS as NAME=value pairs, HEADERS
// (when f is a *http2.MetaHeadersFrame) as name=value fields, the
// authorization header's value hidden; DATA as its bytes (one item, not
// to be wrapped: wrap is false), WINDOW_UPDATE as its increment, PING as
// its opaque data, RST_STREAM and GOAWAY as their error codes.
func Items(f http2.Frame) (items []string, wrap bool) {
	switch f := f.(type) {
	case *http2.SettingsFrame:
		_ = f.ForeachSetting(func(s http2.Setting) error {
			items = append(items, s.ID.String()+"="+strconv.FormatUint(uint64(s.Val), 10))
			return nil
		})
		return items, true
	case *http2.MetaHeadersFrame:
		for _, hf := range f.Fields {
			v := hf.Value
			if hf.Name == "authorization" {
				v = "(hidden)"
			}
			items = append(items, hf.Name+"="+v)
		}
		return items, true
	case *http2.DataFrame:
		if d := strings.TrimSpace(string(f.Data())); d != "" {
			return []string{d}, false
		}
		return nil, false
	case *http2.WindowUpdateFrame:
		return []string{fmt.Sprintf("increment=%d", f.Increment)}, true
	case *http2.PingFrame:
		return []string{fmt.Sprintf("data=%x", f.Data[:])}, true
	case *http2.RSTStreamFrame:
		return []string{f.ErrCode.String()}, true
	case *http2.GoAwayFrame:
		items = []string{fmt.Sprintf("last-stream=%d", f.LastStreamID), f.ErrCode.String()}
		if d := f.DebugData(); len(d) > 0 {
			items = append(items, fmt.Sprintf("%q", d))
		}
		return items, true
	}
	return nil, false
}

// Fit shortens s to at most width columns (a rune from U+1100 up counts
// as two), ending it with "…" when it cut something.
func Fit(s string, width int) string {
	if runeWidth(s) <= width {
		return s
	}
	w := 0
	for i, r := range s {
		if w+runeWidth(string(r)) > width-1 {
			return s[:i] + "…"
		}
		w += runeWidth(string(r))
	}
	return s
}

// runeWidth counts s's columns as Fit does.
func runeWidth(s string) int {
	w := 0
	for _, r := range s {
		if r >= 0x1100 {
			w += 2
		} else {
			w++
		}
	}
	return w
}
