package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// maxLogEvents bounds the event log.
const maxLogEvents = 500

// eventLogPane lists the cluster's core/v1 Events as they arrive, like
// `kubectl get events -w`.
type eventLogPane struct {
	*shared
	width, height int
	events        []kubeEvent
	dropped       int64
	connected     bool
	sc            scroll
}

var _ Component = (*eventLogPane)(nil)

func newEventLogPane(sh *shared) *eventLogPane {
	return &eventLogPane{shared: sh, sc: scroll{follow: true, tail: true}}
}

func (p *eventLogPane) SetSize(w, h int)       { p.width, p.height = w, h; p.sc.height = h }
func (p *eventLogPane) KeyHelp() []key.Binding { return []key.Binding{p.keys.Up} }

func (p *eventLogPane) Update(msg tea.Msg) tea.Cmd {
	scrollKeys(p.keys, &p.sc, len(p.events), msg)
	return nil
}

// add appends events, keeping the last maxLogEvents.
func (p *eventLogPane) add(evs []kubeEvent) {
	p.events = append(p.events, evs...)
	if n := len(p.events) - maxLogEvents; n > 0 {
		p.events = append([]kubeEvent(nil), p.events[n:]...)
		p.sc.off = max(p.sc.off-n, 0)
	}
}

func (p *eventLogPane) reset(connected bool) {
	p.events, p.dropped, p.connected = nil, 0, connected
	p.sc = scroll{follow: true, tail: true, height: p.height}
}

func (p *eventLogPane) View() string {
	st := p.styles
	if len(p.events) == 0 {
		msg := tr(p.lang, "no_events")
		if !p.connected {
			msg = tr(p.lang, "no_cluster")
		}
		return p.sc.window([]string{st.Dim.Render(msg)}, p.width)
	}
	ls := make([]string, 0, len(p.events))
	for _, e := range p.events {
		typ := st.Dim
		if e.Type == "Warning" {
			typ = st.Warn
		}
		count := ""
		if e.Count > 1 {
			count = fmt.Sprintf(" (x%d)", e.Count)
		}
		ls = append(ls, st.Dim.Render(e.Time.Format("15:04:05"))+" "+typ.Render(fmt.Sprintf("%-7s", e.Type))+" "+
			st.Bold.Render(e.Reason)+" "+e.Object+count+" "+st.Dim.Render(e.Message))
	}
	return p.sc.window(ls, p.width)
}
