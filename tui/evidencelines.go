package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// draw fits laid-out evidence to the view's width and styles each line
// by its role: the one thing the TUI adds to the layout, besides
// scrolling it.
func (v evidenceView) draw(ls []flow.Line) []string {
	d := &lines{width: v.width}
	for _, ln := range ls {
		st := v.style(ln.Role)
		switch {
		case ln.Role == flow.RoleBlank:
			d.blank()
		case ln.Mark != "":
			d.signed(st, ln.Mark, ln.Text)
		case ln.Fit == flow.FitAnywhere:
			d.hard(st, ln.Hang, ln.Text)
		case ln.Fit == flow.FitNone:
			d.out = append(d.out, st.Render(ln.Text))
		default:
			d.add(st, ln.Hang, ln.Text)
		}
	}
	return d.out
}

// style is the look of a line of role r.
func (v evidenceView) style(r flow.Role) lipgloss.Style {
	switch r {
	case flow.RoleHeading:
		return v.st.Bold
	case flow.RoleNote:
		return v.st.Dim
	case flow.RoleOK:
		return v.st.OK
	case flow.RoleFailed:
		return v.st.Fail
	case flow.RoleWarning:
		return v.st.Warn
	case flow.RoleAdded:
		return v.st.Add
	case flow.RoleRemoved:
		return v.st.Del
	case flow.RoleFraming:
		return v.st.Wire
	}
	return v.st.Narration
}

// lines builds wrapped, styled lines of one width.
type lines struct {
	width int
	out   []string
}

// add wraps text to the width and styles each line; continuation lines
// are indented by indent spaces.
func (l *lines) add(st lipgloss.Style, indent int, text string) {
	w := max(l.width, 10)
	// with an indent, every row is wrapped to the width left of it
	ww := max(w-indent, 5)
	for _, part := range strings.Split(text, "\n") {
		var wrapped string
		if wide(part) {
			// CJK text breaks between characters and at spaces, as
			// the narration does, never inside a word of Latin letters
			// (the line's leading spaces are its layout: kept)
			body := strings.TrimLeft(part, " ")
			lead := part[:len(part)-len(body)]
			wrapped = lead + strings.Join(wrapProse(body, max(ww-len(lead), 5)), "\n")
		} else {
			wrapped = ansi.Wrap(part, ww, "")
		}
		for i, r := range strings.Split(wrapped, "\n") {
			if i > 0 {
				r = strings.Repeat(" ", indent) + r
			}
			l.out = append(l.out, st.Render(r))
		}
	}
}

// hard adds text cut into width-wide pieces (bytes on the wire, where
// word boundaries mean nothing); the pieces after the first are indented
// by indent spaces.
func (l *lines) hard(st lipgloss.Style, indent int, text string) {
	w := max(l.width, 10)
	indent = min(indent, w/2)
	for _, part := range strings.Split(text, "\n") {
		first := ansi.Truncate(part, w, "")
		l.out = append(l.out, st.Render(first))
		rest := ansi.TruncateLeft(part, ansi.StringWidth(first), "")
		if rest == "" {
			continue
		}
		for _, ln := range strings.Split(ansi.Hardwrap(rest, w-indent, true), "\n") {
			l.out = append(l.out, st.Render(strings.Repeat(" ", indent)+ln))
		}
	}
}

// signed adds a diff line: sign, then text cut into pieces that each
// start with sign again, so that a wrapped line still reads as added or
// removed without colours.
func (l *lines) signed(st lipgloss.Style, sign, text string) {
	w := max(l.width-ansi.StringWidth(sign), 5)
	for _, ln := range strings.Split(ansi.Hardwrap(text, w, true), "\n") {
		l.out = append(l.out, st.Render(sign+ln))
	}
}

// blank adds an empty line.
func (l *lines) blank() { l.out = append(l.out, "") }

// wide reports whether s has double-width characters (CJK).
func wide(s string) bool {
	return ansi.StringWidth(s) != utf8.RuneCountInString(s)
}
