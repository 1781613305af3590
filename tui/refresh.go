package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// refresh brings the panes up to date with the model after each message
// (Update calls it last) and returns the history reads the evidence
// needs: the stage and tab follow the pod unless the learner chose them
// (the step tab opens by itself when a step's own evidence is fresh:
// wantsStepTab). The question overlay opens or closes with the question
// asked at the gate.
func (m *Model) refresh() []tea.Cmd {
	m.syncQuestion()
	m.layout() // the narration's height follows the step
	m.setNarration()
	t := m.tracks.followed()
	if !m.stagePinned {
		m.selected = flow.StageAdmitted
		if t != nil && t.reached() > 0 {
			m.selected = t.reached()
			if t.unschedulable() {
				m.selected = flow.StageScheduled // its failed attempts
			}
		}
	}
	rs := m.stepRequests()
	if !m.tabPinned {
		m.evidence.tab = bestTab(t, m.selected)
		if m.wantsStepTab(t, rs != nil) {
			m.evidence.tab = tabStep
		}
	}
	m.pipeline.track, m.pipeline.selected, m.pipeline.now = t, m.selected, m.lastTick
	v := evidenceView{st: m.shared.styles, lang: m.shared.lang, width: m.evidence.width, etcdHistory: m.etcdHistory}
	if m.evidence.tab == tabStep {
		m.showStep(v)
		return nil
	}
	if rs != nil {
		// a step of its own that created no pod: its requests are the evidence
		m.evidence.setRequests(m.step.Index, v.requests(rs))
		return nil
	}
	body, need := v.render(t, m.selected, m.evidence.tab)
	m.evidence.set(m.selected, m.evidence.tab, body)
	var cmds []tea.Cmd
	for _, k := range need {
		if cmd := m.askHistory(k); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// stepRequests returns the current step's requests when the evidence
// pane shows them: the step created no pod (so the pipeline still shows
// an earlier one, or none; a pod admitted during the step counts before
// its create's request has ended), it made requests, and the learner did
// not choose a stage with ←/→.
func (m *Model) stepRequests() []stepRequest {
	if !m.hasStep || m.stagePinned || !requestAction(m.step.Action) || m.podSteps[m.step.Index] {
		return nil
	}
	rs := m.requestsByStep[m.step.Index]
	// the events and the steps come on two channels: a request of this
	// step may have been filed under the previous one
	if f := strings.Fields(m.step.Action); len(f) >= 3 && f[0] == "http" {
		var late []stepRequest
		for _, r := range m.requestsByStep[m.step.Index-1] {
			if r.tr.Method == f[1] && r.tr.URI == f[2] {
				late = append(late, r)
			}
		}
		rs = append(late, rs...)
	}
	for _, r := range rs {
		if _, ok := m.tracks.byUID[r.obj.UID]; ok && r.obj.UID != "" {
			return nil // the step made a pod we follow through its stages
		}
	}
	return rs
}

// requestAction reports whether a step's action (StepUpdate.Action) is
// a request to the API server: the requests of the others (adding a
// node, stopping a kubelet, a step with only expectations) are the
// runner's polls, not worth showing instead of the pod.
func requestAction(action string) bool {
	verb, _, _ := strings.Cut(action, " ")
	switch verb {
	case "create", "apply", "applyFile", "update", "delete", "patch", "http":
		return true
	}
	return false
}

// setNarration gives the narration overlay the current step's whole
// narration in the current language, or the scenario's summary before
// the first step.
func (m *Model) setNarration() {
	lang := m.shared.lang
	title := m.scenario.Title.In(lang)
	if title == "" {
		title = m.scenario.Name
	}
	if !m.hasStep {
		m.fullNarration.set(fmt.Sprintf("%d/0/%s", m.gen, lang), title,
			tr(lang, "narr_none")+"\n\n"+m.scenario.Summary.In(lang))
		return
	}
	step := fmt.Sprintf(tr(lang, "step_of"), m.step.Index, m.step.Total)
	m.fullNarration.set(fmt.Sprintf("%d/%d/%s", m.gen, m.step.Index, lang), step+" · "+title, m.step.Narration.In(lang))
}
