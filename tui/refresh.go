package tui

import (
	"fmt"

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
	reqStep, rs := m.stepRequests()
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
		m.evidence.setRequests(reqStep, v.requests(rs))
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
	m.resetNarrationWindow(fmt.Sprintf("%d/%d/%s", m.gen, m.step.Index, lang))
	m.fullNarration.set(fmt.Sprintf("%d/%d/%s", m.gen, m.step.Index, lang), step+" · "+title, m.step.Narration.In(lang))
}
