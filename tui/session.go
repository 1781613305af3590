package tui

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// This file drives the session: start begins one, and the handlers below
// take in what its commands report (see commands.go), each returning the
// commands that wait for more. Update calls them; a message of an older
// session (gen) changes nothing.

// walkthrough is what one played session leaves for the markdown export.
type walkthrough struct {
	info  ScenarioInfo
	steps []StepUpdate
	// answers are the learner's answers to the questions asked at the
	// gate, by step index.
	answers map[int]learnerAnswer
	tracks  *trackSet
	done    bool
	err     error
}

// start ends the current session (if any) and returns the command that
// starts name on a fresh cluster; the model forgets everything of the
// old session at once.
func (m *Model) start(name string) tea.Cmd {
	old, oldWatch := m.sess, m.watch
	m.gen++
	m.resetSession(name)
	gen, driver, owner := m.gen, m.driver, m.sessions
	opts := StartOptions{Mode: m.mode, Speed: m.speed, Lang: m.shared.lang}
	return func() tea.Msg {
		s, ok, err := owner.replace(old, oldWatch, func(ctx context.Context) (Session, error) {
			return driver.Start(ctx, name, opts)
		})
		switch {
		case !ok:
			return nil
		case err != nil:
			return sessionStartedMsg{gen: gen, err: fmt.Errorf("start %s: %w", name, err)}
		}
		return sessionStartedMsg{gen: gen, sess: s}
	}
}

// resetSession clears what the model knows of a session and begins the
// walkthrough of scenario name.
func (m *Model) resetSession(name string) {
	m.scenario = m.info(name)
	m.sess, m.watch, m.starting, m.startErr = nil, nil, true, nil
	m.tracks = newTrackSet()
	m.step, m.hasStep, m.done, m.doneErr = StepUpdate{}, false, false, nil
	m.summaryDue = false
	m.nextStep = nil
	m.lastDoneAt, m.questionShown, m.questionCursor = time.Time{}, 0, 0
	m.etcdHistory, m.historyAsked = map[historyKey]historyEntry{}, map[historyKey]bool{}
	m.requestsByStep, m.podSteps, m.requestOf = map[int][]stepRequest{}, map[int]bool{}, map[string]int{}
	m.selected, m.stagePinned, m.tabPinned = 0, false, false
	m.events.reset(false)
	m.cluster.snap, m.cluster.connected = clusterSnapshot{}, false
	m.walk = &walkthrough{info: m.scenario, tracks: m.tracks, answers: map[int]learnerAnswer{}}
	m.played = append(m.played, m.walk)
	m.refresh()
}

// sessionStarted takes the started session: it sets the gate to the
// model's mode and speed, waits on the session's channels and opens the
// TUI's own watches on its cluster (when it has a RESTConfig).
func (m *Model) sessionStarted(msg sessionStartedMsg) []tea.Cmd {
	if msg.gen != m.gen {
		if msg.sess != nil {
			_ = m.sessions.drop(msg.sess, nil)
		}
		return nil
	}
	m.starting = false
	if msg.err != nil {
		m.startErr = msg.err
		return nil
	}
	m.sess = msg.sess
	g := m.sess.Gate()
	g.SetMode(m.mode)
	g.SetDelay(AutoDelay(m.speed))
	cmds := []tea.Cmd{waitForEvents(m.gen, m.sess), waitForStep(m.gen, m.sess), waitForDone(m.gen, m.sess)}
	cfg := m.sess.RESTConfig()
	if cfg == nil {
		return cmds
	}
	c, err := m.client(cfg)
	if err != nil {
		return cmds
	}
	m.watch = startKubeWatch(c)
	m.sessions.add(m.sess, m.watch)
	m.events.reset(true)
	m.cluster.connected = true
	return append(cmds, waitForKubeEvents(m.gen, m.watch), waitForCluster(m.gen, m.watch))
}

// flowEvents files the session's flow events: a hold before the next
// step, a pod's staged events, a step's own requests; it asks etcd for
// the previous revision of each write it will diff.
func (m *Model) flowEvents(msg flowEventsMsg) []tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	var cmds []tea.Cmd
	for _, e := range msg.evs {
		if h := e.Hold; h != nil && h.Boundary.Point == flow.PointNextStep {
			m.nextStep = nil
			if !h.Released {
				b := h.Boundary
				m.nextStep = &b
			}
			continue
		}
		m.tracks.add(e)
		if e.Stage == flow.StageAdmitted && m.hasStep && !m.step.Done {
			m.podSteps[m.step.Index] = true
		}
		m.fileStepRequest(e)
		if w := e.Etcd; w != nil && e.Stage != 0 && w.PrevRevision > 0 {
			if cmd := m.askHistory(historyKey{w.Key, w.PrevRevision}); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	return append(cmds, waitForEvents(m.gen, m.sess))
}

// askHistory returns the read of etcd's value at k, unless it was asked
// for already or there is no session.
func (m *Model) askHistory(k historyKey) tea.Cmd {
	if m.historyAsked[k] || m.sess == nil {
		return nil
	}
	m.historyAsked[k] = true
	return readHistory(m.sessions.ctx, m.gen, m.sess, k)
}

// stepUpdate takes a step starting or ending: a new step follows the
// next pod created and the stage the pipeline reaches again.
func (m *Model) stepUpdate(msg stepMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	up := printableStep(msg.up)
	if !up.Done && (!m.hasStep || up.Index != m.step.Index) {
		m.tracks.next = true
		m.stagePinned = false
	}
	m.step, m.hasStep = up, true
	m.settleStepRequests(up)
	if up.Done {
		m.walk.steps = append(m.walk.steps, up)
		m.lastDoneAt = m.clock()
	}
	return waitForStep(m.gen, m.sess)
}

// sessionDone takes the end of the scenario: the summary opens, or is
// due when the narration overlay is open.
func (m *Model) sessionDone(msg sessionDoneMsg) {
	if msg.gen != m.gen {
		return
	}
	m.done, m.doneErr = true, printableErr(m.sess.Err())
	m.walk.done, m.walk.err = true, m.doneErr
	switch m.overlay {
	case overlayNone:
		m.overlay = overlaySummary
	case overlayNarration:
		m.summaryDue = true
	}
}

// historyRead files a value read from etcd's history.
func (m *Model) historyRead(msg historyMsg) {
	if msg.gen == m.gen {
		m.etcdHistory[msg.key] = msg.entry
	}
}

// kubeEvents adds core/v1 Events to the event log.
func (m *Model) kubeEvents(msg kubeEventsMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.events.add(msg.evs)
	if m.watch == nil {
		return nil
	}
	m.events.dropped = m.watch.dropped.Load()
	return waitForKubeEvents(m.gen, m.watch)
}

// clusterChanged shows the new cluster view.
func (m *Model) clusterChanged(msg clusterMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.cluster.snap = msg.snap
	if m.watch == nil {
		return nil
	}
	return waitForCluster(m.gen, m.watch)
}
