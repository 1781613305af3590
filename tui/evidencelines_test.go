package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// TestWrapMixedChinese: a line of Chinese words and Latin tokens wraps
// between characters and at spaces, never inside a token, and keeps its
// leading indentation.
func TestWrapMixedChinese(t *testing.T) {
	l := &lines{width: 24}
	l.add(lipgloss.NewStyle(), 4, "  用户 kubernetes-admin  组 system:masters,system:authenticated")
	for _, row := range l.out {
		for _, tok := range []string{"kubernetes-admin", "system:masters,system:authenticated"} {
			if strings.Contains(row, tok[:5]) && !strings.Contains(row, tok) && len(tok) <= 24 {
				t.Errorf("token %q broken in row %q", tok, row)
			}
		}
	}
	if !strings.HasPrefix(l.out[0], "  用户") {
		t.Errorf("first row %q lost its indentation", l.out[0])
	}
	if got := strings.Join(l.out, "|"); !strings.Contains(got, "kubernetes-admin") {
		t.Errorf("rows %q", got)
	}
}
