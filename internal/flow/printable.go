package flow

import (
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
// are dropped too. It is safe for concurrent use.
func Printable(s string) string {
	if isPrintable(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, ansi.Strip(s))
}

// isPrintable reports whether s is valid UTF-8 without control characters
// other than newline and tab (the common case, left as it is).
func isPrintable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || (r != '\n' && r != '\t' && unicode.IsControl(r)) {
			return false
		}
	}
	return true
}

// Printable returns t with both languages made Printable.
func (t Text) Printable() Text {
	return Text{En: Printable(t.En), Zh: Printable(t.Zh)}
}
