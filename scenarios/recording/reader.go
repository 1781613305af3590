package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Recording is a recording read back: its header and its entries, the
// end entry last.
type Recording struct {
	Header  Header
	Entries []Entry
}

// Error is what is wrong with a recording, and where: File:Line:Col (Col
// counts characters from 1; 0 when the problem is the line as a whole).
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Read reads a recording from r, named file in errors. A file that is
// not a recording, of a version this package does not read, cut short or
// malformed anywhere is refused whole, with an *Error that says where:
// nothing of it is played.
func Read(file string, r io.Reader) (*Recording, error) {
	br := bufio.NewReader(r)
	rec := &Recording{}
	lineNo, ended := 0, false
	for {
		raw, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(raw) == 0 && err != nil {
			break
		}
		lineNo++
		line := bytes.TrimRight(raw, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				break
			}
			continue
		}
		bad := func(col int, format string, args ...any) error {
			return &Error{File: file, Line: lineNo, Col: col, Msg: fmt.Sprintf(format, args...)}
		}
		switch {
		case lineNo == 1:
			if perr := readHeader(line, &rec.Header, bad); perr != nil {
				return nil, perr
			}
		case ended:
			return nil, bad(1, "a line after the end entry (the end entry must be the last line)")
		default:
			e, perr := readEntry(line, bad)
			if perr != nil {
				return nil, perr
			}
			e.line = lineNo
			rec.Entries = append(rec.Entries, e)
			ended = e.Kind == KindEnd
		}
		if err != nil {
			break
		}
	}
	switch {
	case lineNo == 0:
		return nil, &Error{File: file, Line: 1, Msg: "empty file: not a kubesim session recording"}
	case !ended:
		return nil, &Error{File: file, Line: lineNo, Msg: fmt.Sprintf("the recording ends at line %d without its end entry: it was cut short (the run killed, or the file truncated)", lineNo)}
	}
	return rec, nil
}

// badFunc makes an *Error at column col of the line being read.
type badFunc func(col int, format string, args ...any) error

// readHeader decodes the header line into h: a recording's, of Version.
func readHeader(line []byte, h *Header, bad badFunc) error {
	var probe struct {
		Kubesim *string `json:"kubesim"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return jsonError(line, err, bad)
	}
	switch {
	case probe.Kubesim == nil || *probe.Kubesim != Magic:
		return bad(1, "not a kubesim session recording: its first line has no \"kubesim\": %q", Magic)
	case probe.Version == nil:
		return bad(1, "the header has no version")
	case *probe.Version != Version:
		return bad(column(line, []byte(`"version"`)), "recording format version %d is not one this kubesim reads (it reads version %d): replay it with the kubesim that made it, or a newer one", *probe.Version, Version)
	}
	if err := json.Unmarshal(line, h); err != nil {
		return jsonError(line, err, bad)
	}
	switch {
	case h.Lang != "en" && h.Lang != "zh":
		return bad(column(line, []byte(`"lang"`)), "lang must be en or zh, got %q", h.Lang)
	case h.Output != "plain" && h.Output != "json" && h.Output != "tui":
		return bad(column(line, []byte(`"output"`)), "output must be plain, json or tui, got %q", h.Output)
	case h.Scenario.Name == "":
		return bad(column(line, []byte(`"scenario"`)), "the header names no scenario")
	}
	return nil
}

// readEntry decodes one entry line and checks that it has what its kind
// needs.
func readEntry(line []byte, bad badFunc) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		return e, jsonError(line, err, bad)
	}
	kindCol := column(line, []byte(`"kind"`))
	var missing string
	switch e.Kind {
	case KindStep:
		if e.Step == nil {
			missing = "step"
		}
	case KindResult:
		if e.Step == nil {
			missing = "step"
		} else if e.Result == nil {
			missing = "result"
		}
	case KindEvent:
		if e.Event == nil {
			missing = "event"
		}
	case KindEnd:
	case "":
		return e, bad(1, "an entry without a kind")
	default:
		return e, bad(kindCol, "unknown entry kind %q (step, result, event or end)", e.Kind)
	}
	if missing != "" {
		return e, bad(kindCol, "a %s entry without its %q", e.Kind, missing)
	}
	return e, nil
}

// jsonError places a JSON decoding error of line at its column.
func jsonError(line []byte, err error, bad badFunc) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		col := runeCol(line, syn.Offset)
		if strings.HasPrefix(syn.Error(), "unexpected end") {
			col = utf8.RuneCount(line) + 1 // the line ends too soon
		}
		return bad(col, "malformed JSON: %v", syn)
	case errors.As(err, &typ):
		return bad(runeCol(line, typ.Offset), "%v", typ)
	}
	return bad(1, "%v", err)
}

// runeCol is the column (in characters, from 1) of the byte at offset
// (from 1) of line; past the end, the column after the last character.
func runeCol(line []byte, offset int64) int {
	if offset < 1 {
		return 1
	}
	if int(offset) > len(line) {
		return utf8.RuneCount(line) + 1
	}
	return utf8.RuneCount(line[:offset])
}

// column is the column of the first occurrence of sub in line (1 when
// there is none).
func column(line, sub []byte) int {
	i := bytes.Index(line, sub)
	if i < 0 {
		return 1
	}
	return utf8.RuneCount(line[:i]) + 1
}
