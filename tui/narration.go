package tui

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// narrationPane is the overlay with the current step's whole narration,
// wrapped to its width and scrolled with ↑/↓ j/k, page up/down and the
// mouse wheel. The root model opens and closes it (keys.Narration, esc)
// and gives it its text with set.
type narrationPane struct {
	*shared
	width, height int
	title         string
	text          string
	body          []string
	sc            scroll
	// shown names the text the window's offset belongs to: a new step
	// or language starts again from the top.
	shown string
}

var _ Component = (*narrationPane)(nil)

// SetSize sets the content size; the text is wrapped to width minus a
// margin of one cell on each side.
func (p *narrationPane) SetSize(w, h int) {
	rewrap := w != p.width
	p.width, p.height = w, h
	p.sc.height = max(h, 0)
	if rewrap {
		p.wrap()
	}
}

func (p *narrationPane) Update(msg tea.Msg) tea.Cmd {
	scrollKeys(p.keys, &p.sc, len(p.body), msg)
	return nil
}

// KeyHelp is the help bar while the pane is open.
func (p *narrationPane) KeyHelp() []key.Binding {
	k := p.keys
	keys := append(k.Narration.Keys(), k.Back.Keys()...)
	closeKeys := strings.Join(keys, "/")
	closeIt := key.NewBinding(key.WithKeys(keys...), key.WithHelp(closeKeys, tr(p.lang, "close")))
	return []key.Binding{k.Up, closeIt, k.Next, k.Lang, k.Quit}
}

// set shows text under title; id names the text (its step and language),
// and a new id scrolls back to the top.
func (p *narrationPane) set(id, title, text string) {
	if id != p.shown {
		p.sc.top()
		p.shown = id
	}
	p.title = title
	if text != p.text {
		p.text = text
		p.wrap()
	}
}

func (p *narrationPane) wrap() {
	p.body = wrapProse(p.text, max(p.width-2, 1))
}

// more is how many lines lie below the window.
func (p *narrationPane) more() int {
	p.sc.clamp(len(p.body))
	return max(len(p.body)-p.sc.off-p.sc.height, 0)
}

// View renders the window on the text, one cell in from the left.
func (p *narrationPane) View() string {
	rows := make([]string, len(p.body))
	for i, r := range p.body {
		rows[i] = " " + p.styles.Narration.Render(r)
	}
	return p.sc.window(rows, p.width)
}

// paneTitle is the overlay's title: the step, the keys that close it,
// and how much is above and below the window.
func (p *narrationPane) paneTitle() string {
	t := p.title + " — " + fmt.Sprintf(tr(p.lang, "narr_close"), p.keys.Narration.Help().Key)
	p.sc.clamp(len(p.body))
	if p.sc.off > 0 {
		t += fmt.Sprintf(" ↑%d", p.sc.off)
	}
	if n := p.more(); n > 0 {
		t += fmt.Sprintf(" ↓%d", n)
	}
	return t
}

// wrapProse wraps prose to width cells: at spaces between words, and
// between any two CJK characters (which have no spaces between them).
// Double-width characters count two cells. Closing punctuation never
// starts a line and opening punctuation never ends one, when the line
// has room for it; a word wider than the width is cut. Newlines in text
// start new lines; spaces at a break are dropped.
func wrapProse(text string, width int) []string {
	width = max(width, 2)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		out = append(out, wrapLine(para, width)...)
	}
	return out
}

// proseToken is an unbreakable piece of a line: a word, one CJK
// character with the punctuation bound to it, or a run of spaces.
type proseToken struct {
	text  string
	space bool
}

func (t proseToken) width() int { return ansi.StringWidth(t.text) }

func wrapLine(s string, width int) []string {
	toks := proseTokens(s)
	var out []string
	var line strings.Builder
	lw := 0
	pending := "" // the spaces before the next word, unless it starts a line
	for _, t := range toks {
		if t.space {
			if lw > 0 {
				pending = t.text
			}
			continue
		}
		tw, pw := t.width(), ansi.StringWidth(pending)
		if lw > 0 && lw+pw+tw <= width {
			line.WriteString(pending + t.text)
			lw += pw + tw
			pending = ""
			continue
		}
		if lw > 0 {
			out = append(out, line.String())
			line.Reset()
			lw = 0
		}
		pending = ""
		text := t.text
		for ansi.StringWidth(text) > width {
			head := ansi.Truncate(text, width, "")
			if head == "" { // a character wider than the width
				head = string([]rune(text)[:1])
			}
			out = append(out, head)
			text = text[len(head):]
		}
		line.WriteString(text)
		lw = ansi.StringWidth(text)
	}
	if lw > 0 || len(out) == 0 {
		out = append(out, line.String())
	}
	return out
}

// proseTokens splits s into words (ASCII punctuation stays in them),
// single wide characters and runs of spaces, and binds punctuation to
// its neighbour: a token that starts with closing punctuation to the
// token before it, one after opening punctuation to that punctuation.
func proseTokens(s string) []proseToken {
	var toks []proseToken
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			toks = append(toks, proseToken{text: word.String()})
			word.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			flush()
			if n := len(toks); n > 0 && toks[n-1].space {
				toks[n-1].text += string(r)
			} else {
				toks = append(toks, proseToken{text: string(r), space: true})
			}
		case ansi.StringWidth(string(r)) > 1:
			flush()
			toks = append(toks, proseToken{text: string(r)})
		default:
			word.WriteRune(r)
		}
	}
	flush()
	// bind the punctuation
	var out []proseToken
	glue := false // the last token is opening punctuation: the next joins it
	for _, t := range toks {
		first, _ := firstRune(t.text)
		n := len(out)
		switch {
		case t.space:
			out = append(out, t)
			glue = false
			continue
		case glue && n > 0:
			out[n-1].text += t.text
		case n > 0 && !out[n-1].space && strings.ContainsRune(closing, first):
			out[n-1].text += t.text
		default:
			out = append(out, t)
		}
		last := []rune(t.text)
		glue = strings.ContainsRune(opening, last[len(last)-1])
	}
	return out
}

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

// Punctuation that must not start (closing) or end (opening) a line;
// it matters where a word meets CJK text without a space.
const (
	closing = "，。、；：！？）」』》〉】〕”’…—·,.;:!?)]}"
	opening = "（「『《〈【〔“‘([{"
)

// cutProse cuts s to at most width cells where wrapProse would break
// it, so that no word is cut in two.
func cutProse(s string, width int) string {
	return strings.TrimRight(wrapProse(s, width)[0], " ")
}
