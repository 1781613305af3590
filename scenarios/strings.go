package scenarios

import (
	"strings"

	"github.com/kubesim/kubesim/internal/flow"
)

// containsFold reports whether sub is in s, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// truncate is flow.Truncate: s cut to at most n bytes on a rune
// boundary, marked with "…".
func truncate(s string, n int) string { return flow.Truncate(s, n) }

// joinComma joins s with ", ".
func joinComma(s []string) string { return strings.Join(s, ", ") }
