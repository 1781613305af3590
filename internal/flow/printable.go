package flow

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Printable returns s without terminal control sequences, so that text
// from a scenario file or from the cluster cannot retitle, clear or
// otherwise drive the terminal it is printed on: every escape sequence
// (CSI such as ESC [2J, OSC such as ESC ]0;title ended by BEL or ST, DCS,
// APC, ...) is removed whole, then every remaining C0 and C1 control
// character and DEL, except newline and tab. Bytes that are not UTF-8
// are dropped too. Invisible characters that change how the text around
// them reads (see hidden: the bidirectional controls that reorder a line,
// as in "Trojan Source", and the zero-width spaces and joiners that make
// two strings look alike) are shown as <U+XXXX> instead, so that the
// learner sees that something is there. It is safe for concurrent use.
func Printable(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	for _, r := range ansi.Strip(s) {
		switch {
		case hidden(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		case r != '\n' && r != '\t' && unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPrintable reports whether s is valid UTF-8 without control characters
// other than newline and tab, nor hidden ones (the common case, left as
// it is).
func isPrintable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || (r != '\n' && r != '\t' && unicode.IsControl(r)) || hidden(r) {
			return false
		}
	}
	return true
}

// hidden reports whether r is an invisible character that Printable
// shows escaped: the bidirectional marks, embeddings, overrides and
// isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), the
// zero-width space, the word joiner and the invisible operators
// (U+200B, U+2060-U+2064), and the zero-width no-break space (U+FEFF).
// The zero-width joiner and non-joiner (U+200C, U+200D), which scripts
// and emoji need, are left.
func hidden(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200B, r == 0x200E, r == 0x200F, r == 0xFEFF:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Printable returns t with both languages made Printable.
func (t Text) Printable() Text {
	return Text{En: Printable(t.En), Zh: Printable(t.Zh)}
}
