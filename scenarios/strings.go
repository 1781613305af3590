package scenarios

import (
	"strings"
	"unicode/utf8"
)

// containsFold reports whether sub is in s, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// truncate shortens s to at most n bytes (on a rune boundary), marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// joinComma joins s with ", ".
func joinComma(s []string) string { return strings.Join(s, ", ") }
