package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// The presenter's mode (Options.Present) is for a teacher at a
// projector: the class reads the narration on the screen, so it is
// never cut, in auto mode as in step mode. It takes the rows the panes
// can spare (the pipeline's height while a pod is shown, presentMinBody
// without one); a narration longer than that is shown a window at a
// time, paged with page down and page up (a presentation clicker's
// keys), the status line saying how much is below and above.

// presentMinBody is the fewest rows the panes keep in the presenter's
// mode when no pod is shown: the evidence's border and four rows.
const presentMinBody = 6

// narrationWindow is the presenter's window on the narration: its first
// row, and the narration (session, step, language) it belongs to.
type narrationWindow struct {
	off int
	id  string
}

// presentNarrationLimit is the most rows the narration may take in the
// presenter's mode: all that the panes leave.
func (m *Model) presentNarrationLimit() int {
	room := m.height - headerRows - 1 - helpRows - m.minBody()
	return max(room, narrationRows-1)
}

// narrationWindowRows returns the rows of the narration's window, n of
// lines from the window's offset (kept on the lines), and how many lines
// lie above and below it.
func (m *Model) narrationWindowRows(lines []string, n int) (rows []string, above, below int) {
	off := min(max(m.narr.off, 0), max(len(lines)-n, 0))
	m.narr.off = off
	end := min(off+n, len(lines))
	return append([]string(nil), lines[off:end]...), off, len(lines) - end
}

// pageHint says what lies beyond the narration's window and the keys
// that show it ("" when all of it is shown).
func (m *Model) pageHint() string {
	if !m.present || m.overlay == overlayNarration {
		return ""
	}
	_, above, below := m.narrationWindowRows(m.narrationLines(), m.narrationText())
	lang, hint := m.shared.lang, ""
	if above > 0 {
		hint = fmt.Sprintf(tr(lang, "narr_page_up"), above)
	}
	if below > 0 {
		if hint != "" {
			hint += " · "
		}
		hint += fmt.Sprintf(tr(lang, "narr_page"), below)
	}
	return hint
}

// resetNarrationWindow starts the window at the top of a new narration
// (another session, step or language); id names it.
func (m *Model) resetNarrationWindow(id string) {
	if id != m.narr.id {
		m.narr = narrationWindow{id: id}
	}
}

// presentKey pages the narration in the presenter's mode when it does
// not fit: page down and page up move its window by a window less a
// row. It reports whether msg did.
func (m *Model) presentKey(msg tea.KeyMsg) bool {
	if !m.present {
		return false
	}
	lines, n := m.narrationLines(), m.narrationText()
	if len(lines) <= n {
		return false
	}
	page := max(n-1, 1)
	switch msg.String() {
	case "pgdown":
		m.narr.off = min(m.narr.off+page, len(lines)-n)
	case "pgup":
		m.narr.off = max(m.narr.off-page, 0)
	default:
		return false
	}
	return true
}
