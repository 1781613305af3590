package tui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The node overlay's keys, commands and message: K opens it and asks
// the session for its nodes; enter stops or starts the kubelet of the
// node under the cursor, in a command, which then lists the nodes again.

// nodeControlTimeout bounds one stop or start and the listing after it.
const nodeControlTimeout = 30 * time.Second

// kubeletMsg is the session's list of nodes after the overlay opened, or
// after a stop or start (did).
type kubeletMsg struct {
	gen   int
	seq   int // nodesPane.asked when it was asked for
	nodes []NodeKubelet
	err   error // of the listing
	did   *kubeletAction
}

// kubeletAction is a stop or start done, and its error.
type kubeletAction struct {
	node string
	stop bool
	err  error
}

// openNodes opens the node overlay and returns the command that lists
// the nodes, when the session can stop kubelets.
func (m *Model) openNodes() tea.Cmd {
	m.overlay = overlayNodes
	nc, _ := m.sess.(NodeControl) // nil for no session
	m.nodes.open(m.sess != nil, nc)
	if nc == nil {
		return nil
	}
	return m.nodes.list(m.sessions.ctx, m.gen, nil)
}

// relistKubelets returns, while the node overlay is open and idle, the
// command that lists the nodes again: each tick, so that a kubelet the
// scenario (or kubesim node, in another terminal) stopped or started
// shows as it is.
func (m *Model) relistKubelets() tea.Cmd {
	p := m.nodes
	if m.overlay != overlayNodes || p.control == nil || p.busy != "" || p.listing {
		return nil
	}
	return p.list(m.sessions.ctx, m.gen, nil)
}

// nodesKey handles every key while the node overlay is open: enter stops
// or starts the chosen node's kubelet, esc and K close the overlay, q
// quits, L changes the language, ↑/↓ move the cursor.
func (m *Model) nodesKey(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	k := m.shared.keys
	switch {
	case key.Matches(msg, k.Enter):
		return m.toggleKubelet(), false
	case key.Matches(msg, k.Back), key.Matches(msg, k.Kubelet):
		m.overlay = overlayNone
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Lang):
		m.toggleLang()
	default:
		return m.nodes.Update(msg), false
	}
	return nil, false
}

// toggleKubelet returns the command that stops the chosen node's kubelet
// if it runs, or starts it; nothing while one is under way.
func (m *Model) toggleKubelet() tea.Cmd {
	p := m.nodes
	n, ok := p.chosen()
	if !ok || p.control == nil || p.busy != "" {
		return nil
	}
	if n.NoKubelet {
		p.result, p.resultErr = formatText(nodesText["cannot"], n.Name), nil
		return nil
	}
	act := &kubeletAction{node: n.Name, stop: n.Running}
	p.busy, p.resultErr = n.Name, nil
	p.result = formatText(nodesText["starting"], n.Name)
	if act.stop {
		p.result = formatText(nodesText["stopping"], n.Name)
	}
	return p.list(m.sessions.ctx, m.gen, act)
}

// list returns the command that does act (if not nil) and then lists
// the nodes, numbered.
func (p *nodesPane) list(ctx context.Context, gen int, act *kubeletAction) tea.Cmd {
	p.asked++
	p.listing = true
	nc, seq := p.control, p.asked
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, nodeControlTimeout)
		defer cancel()
		if act != nil {
			done := *act
			if done.stop {
				done.err = nc.StopKubelet(ctx, done.node)
			} else {
				done.err = nc.StartKubelet(ctx, done.node)
			}
			act = &done
		}
		nodes, err := nc.Kubelets(ctx)
		return kubeletMsg{gen: gen, seq: seq, nodes: nodes, err: err, did: act}
	}
}

// kubeletsListed takes the session's answer: the nodes, and what came of
// the stop or start.
func (m *Model) kubeletsListed(msg kubeletMsg) {
	p := m.nodes
	if msg.gen != m.gen || msg.seq <= p.shown {
		return
	}
	p.shown = msg.seq
	p.nodes, p.listErr, p.loaded = msg.nodes, msg.err, true
	p.listing = p.shown < p.asked
	p.cursor = max(min(p.cursor, len(p.nodes)-1), 0)
	if a := msg.did; a != nil {
		p.busy, p.resultErr = "", a.err
		p.result = formatText(nodesText["did_start"], a.node)
		if a.stop {
			p.result = formatText(nodesText["did_stop"], a.node)
		}
	}
}
