package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// scroll is a window of height rows on n lines.
type scroll struct {
	off    int
	height int
	// follow makes the window stick to the last lines (tail) whenever
	// it is scrolled to the bottom, as a log does.
	follow bool
	tail   bool
}

// by moves the window d lines.
func (s *scroll) by(d, n int) {
	s.tail = false
	s.off += d
	s.clamp(n)
	s.tail = s.follow && s.off >= n-s.height
}

// top moves the window to the first line.
func (s *scroll) top() { s.off, s.tail = 0, false }

// clamp keeps the window on n lines: at the last lines while it follows
// the tail, never past the end nor before the first line.
func (s *scroll) clamp(n int) {
	if s.tail {
		s.off = n - s.height
	}
	s.off = min(s.off, n-s.height)
	s.off = max(s.off, 0)
}

// window returns the visible lines, padded to height rows and each cut
// or padded to width cells.
func (s *scroll) window(ls []string, width int) string {
	s.clamp(len(ls))
	out := make([]string, s.height)
	for i := range out {
		if k := s.off + i; k < len(ls) {
			out[i] = fit(ls[k], width)
		} else {
			out[i] = strings.Repeat(" ", max(width, 0))
		}
	}
	return strings.Join(out, "\n")
}

// fit cuts s to width cells (with an ellipsis) or pads it with spaces.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		s = ansi.Truncate(s, width, "…")
		w = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", max(width-w, 0))
}

// scrollKeys moves sc for the up/down keys and the mouse wheel; it
// reports whether msg was one of them.
func scrollKeys(k keyMap, sc *scroll, n int, msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Up):
			sc.by(-1, n)
		case key.Matches(msg, k.Down):
			sc.by(1, n)
		case msg.String() == "pgup":
			sc.by(-sc.height, n)
		case msg.String() == "pgdown":
			sc.by(sc.height, n)
		default:
			return false
		}
		return true
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			sc.by(-3, n)
		case tea.MouseButtonWheelDown:
			sc.by(3, n)
		default:
			return false
		}
		return true
	}
	return false
}
