package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// evidencePane shows the selected stage's evidence in tabs.
type evidencePane struct {
	*shared
	width, height int
	tab           tab
	stage         flow.Stage
	body          []string
	sc            scroll
	// reqStep, when not 0, says the body is the requests of that
	// scenario step rather than a stage's evidence.
	reqStep int
	// stepKey names the steps the step tab shows (stepTabKey).
	stepKey string
}

var _ Component = (*evidencePane)(nil)

func (e *evidencePane) SetSize(w, h int) {
	e.width, e.height = w, h
	e.sc.height = max(h-2, 0)
}

func (e *evidencePane) Update(msg tea.Msg) tea.Cmd {
	scrollKeys(e.keys, &e.sc, len(e.body), msg)
	return nil
}

func (e *evidencePane) KeyHelp() []key.Binding {
	return []key.Binding{e.keys.PrevTab, e.keys.Up}
}

// set replaces the content; the window goes back to the top when the
// stage or the tab changed.
func (e *evidencePane) set(s flow.Stage, tb tab, body []string) {
	if s != e.stage || tb != e.tab {
		e.sc.top()
	}
	if e.reqStep != 0 {
		e.sc.top()
	}
	e.stage, e.tab, e.body, e.reqStep = s, tb, body, 0
}

// setStep shows the step tab with body; the window goes back to the top
// when the tab or the steps shown (key) changed.
func (e *evidencePane) setStep(key string, body []string) {
	if e.tab != tabStep || e.reqStep != 0 || key != e.stepKey {
		e.sc.top()
	}
	e.tab, e.body, e.reqStep, e.stepKey = tabStep, body, 0, key
}

// setRequests shows the requests of scenario step n.
func (e *evidencePane) setRequests(n int, body []string) {
	if e.reqStep != n {
		e.sc.top()
	}
	e.tab, e.body, e.reqStep = tabRequest, body, n
}

func (e *evidencePane) View() string {
	st := e.styles
	var tabs []string
	for t := tab(0); t < numTabs; t++ {
		name := tabNames[t].In(e.lang)
		if t == e.tab {
			tabs = append(tabs, st.TabActive.Render("["+name+"]"))
		} else {
			tabs = append(tabs, st.Tab.Render(" "+name+" "))
		}
	}
	head := fit(strings.Join(tabs, ""), e.width)
	title := ""
	if e.reqStep != 0 {
		title = st.Bold.Render(fmt.Sprintf(tr(e.lang, "step_requests"), e.reqStep))
	} else if e.tab == tabStep {
		title = st.Bold.Render(tr(e.lang, "step_tab"))
	} else if info, ok := e.stage.Info(); ok {
		title = st.Bold.Render(fmt.Sprintf("%d/8 %s", int(e.stage), info.Title.In(e.lang)))
	}
	more := ""
	if n := len(e.body) - e.sc.off - e.sc.height; n > 0 {
		more = st.Dim.Render(fmt.Sprintf(" ↓%d", n))
	}
	return head + "\n" + fit(title+more, e.width) + "\n" + e.sc.window(e.body, e.width)
}
