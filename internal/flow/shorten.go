package flow

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// previewBytes is how much of a value or frame a Brief layout shows.
const previewBytes = 120

// Truncate shortens s to at most n bytes, cut on a rune boundary and
// marked with "…"; s is returned as it is when it fits.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Preview returns the start of b on one line: text as it is, its line
// breaks escaped, cut at 120 bytes; anything else (a protobuf frame) as
// "(binary)" and the hex of its first 40 bytes.
func Preview(b []byte) string {
	if !isText(b) {
		n := min(len(b), previewBytes/3)
		s := fmt.Sprintf("% x", b[:n])
		if n < len(b) {
			s += " …"
		}
		return "(binary) " + s
	}
	s := strings.TrimRight(string(b), "\r\n")
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
	return Truncate(s, previewBytes)
}

// isText reports whether b is UTF-8 without control characters other
// than line breaks and tabs.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}

// oneLine joins the words of s with single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Pad fills s with spaces to width cells on the terminal (a CJK
// character takes two), as %-*s does for ASCII.
func Pad(s string, width int) string {
	if n := width - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
