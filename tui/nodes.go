package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubesim/kubesim/internal/flow"
)

// This file is the node overlay (K): the learner picks a node and stops
// or starts its kubelet, to see the control plane notice a node that
// went silent. The session does it (NodeControl); the overlay shows the
// kubelets' states it reports and each node's Ready condition as the
// TUI's own watch sees it (the cluster view's).

// NodeControl is what a Session may also do: stop and start the kubelets
// of its cluster's nodes. The node overlay acts only on a session that
// implements it. Every method is safe for concurrent use; the TUI calls
// them from commands, never from Update.
type NodeControl interface {
	// Kubelets lists the nodes with the state of their kubelets, by name.
	Kubelets(ctx context.Context) ([]NodeKubelet, error)
	// StopKubelet stops the kubelet of node name: the Node object stays,
	// nothing renews its Lease or reports its status any more.
	StopKubelet(ctx context.Context, name string) error
	// StartKubelet starts the kubelet of node name again.
	StartKubelet(ctx context.Context, name string) error
}

// NodeKubelet is a node and the state of its kubelet.
type NodeKubelet struct {
	Name string
	// Running is true while its kubelet runs.
	Running bool
	// NoKubelet is a Node the cluster runs no kubelet for (one created
	// through the API): it can be neither stopped nor started.
	NoKubelet bool
}

// nodesPane is the node overlay's content.
type nodesPane struct {
	*shared
	width, height int
	// cluster is the cluster view, whose snapshot says which nodes are
	// Ready.
	cluster *clusterPane
	// control is nil when the session cannot stop kubelets, or when
	// none runs yet (hasSession false).
	control    NodeControl
	hasSession bool
	nodes      []NodeKubelet
	loaded     bool
	listErr    error
	cursor     int
	// busy is the node whose kubelet is being stopped or started.
	busy string
	// listing is set while a listing is under way; asked numbers the
	// listings asked for, shown the one on screen (an older one that
	// comes late is dropped).
	listing      bool
	asked, shown int
	// result says what the last stop or start did.
	result    flow.Text
	resultErr error
}

var _ Component = (*nodesPane)(nil)

func (p *nodesPane) SetSize(w, h int) { p.width, p.height = w, h }
func (p *nodesPane) KeyHelp() []key.Binding {
	toggle := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", p.text("toggle")))
	closeIt := key.NewBinding(key.WithKeys("esc", "K"), key.WithHelp("esc/K", tr(p.lang, "close")))
	return []key.Binding{p.keys.Up, toggle, closeIt}
}

// Update moves the cursor.
func (p *nodesPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, p.keys.Up):
			p.cursor = max(p.cursor-1, 0)
		case key.Matches(k, p.keys.Down):
			p.cursor = max(min(p.cursor+1, len(p.nodes)-1), 0)
		}
	}
	return nil
}

// open readies the overlay for a session (hasSession) and its node
// control (nil: none).
func (p *nodesPane) open(hasSession bool, control NodeControl) {
	p.hasSession, p.control, p.nodes, p.loaded, p.listErr = hasSession, control, nil, false, nil
	p.listing, p.shown = false, p.asked
	p.busy, p.result, p.resultErr = "", flow.Text{}, nil
}

// chosen is the node under the cursor.
func (p *nodesPane) chosen() (NodeKubelet, bool) {
	if p.cursor < 0 || p.cursor >= len(p.nodes) {
		return NodeKubelet{}, false
	}
	return p.nodes[p.cursor], true
}

// nodesText is the overlay's text, both languages.
var nodesText = map[string]flow.Text{
	"intro": {En: "Stop a node's kubelet, as systemctl stop kubelet would: the Node object stays, but nothing renews its Lease or reports its status until it starts again. Watch its Ready condition here and in the cluster view.",
		Zh: "停止一个节点的 kubelet，如同在机器上执行 systemctl stop kubelet：Node 对象仍在，但在它再次启动之前，没有谁续约它的 Lease，也没有谁上报它的状态。在这里和集群视图中观察它的 Ready 状况。"},
	"title":     {En: "Nodes and their kubelets", Zh: "节点与它们的 kubelet"},
	"toggle":    {En: "stop/start kubelet", Zh: "停止/启动 kubelet"},
	"none":      {En: "No cluster runs yet.", Zh: "还没有运行中的集群。"},
	"nocontrol": {En: "This session cannot stop kubelets.", Zh: "本会话不能停止 kubelet。"},
	"loading":   {En: "Asking the cluster for its nodes…", Zh: "正在向集群查询节点……"},
	"empty":     {En: "This cluster has no nodes.", Zh: "这个集群没有节点。"},
	"running":   {En: "kubelet running", Zh: "kubelet 运行中"},
	"stopped":   {En: "kubelet stopped", Zh: "kubelet 已停止"},
	"nokubelet": {En: "no kubelet", Zh: "没有 kubelet"},
	"stopping":  {En: "stopping the kubelet of %s…", Zh: "正在停止 %s 的 kubelet……"},
	"starting":  {En: "starting the kubelet of %s…", Zh: "正在启动 %s 的 kubelet……"},
	"did_stop":  {En: "kubelet of %s stopped", Zh: "%s 的 kubelet 已停止"},
	"did_start": {En: "kubelet of %s started: it registers the Node again and renews its Lease",
		Zh: "%s 的 kubelet 已启动：它重新注册 Node 并续约 Lease"},
	"cannot": {En: "%s has no kubelet in kubesim: it was created through the API", Zh: "%s 在 kubesim 中没有 kubelet：它是通过 API 创建的"},
}

func (p *nodesPane) text(key string) string { return nodesText[key].In(p.lang) }

// View lists the nodes under the introduction, the result of the last
// stop or start below.
func (p *nodesPane) View() string {
	st := p.styles
	l := &lines{width: p.width - 2}
	l.add(st.Narration, 0, p.text("intro"))
	l.blank()
	switch {
	case p.control == nil && p.hasSession:
		l.add(st.Dim, 0, p.text("nocontrol"))
	case p.control == nil:
		l.add(st.Dim, 0, p.text("none"))
	case p.listErr != nil:
		l.add(st.Fail, 2, "✗ "+p.listErr.Error())
	case !p.loaded:
		l.add(st.Dim, 0, p.text("loading"))
	case len(p.nodes) == 0:
		l.add(st.Dim, 0, p.text("empty"))
	}
	l.out = append(l.out, p.rows()...)
	if r := p.resultLine(); r != "" {
		l.blank()
		l.out = append(l.out, r)
	}
	rows := make([]string, 0, p.height)
	for _, r := range l.out {
		rows = append(rows, fit(" "+r, p.width))
	}
	for len(rows) < p.height {
		rows = append(rows, strings.Repeat(" ", p.width))
	}
	return strings.Join(rows[:p.height], "\n")
}

// rows are the nodes, one a row, the cursor's marked.
func (p *nodesPane) rows() []string {
	st := p.styles
	nameW := 4
	for _, n := range p.nodes {
		nameW = max(nameW, len(n.Name))
	}
	out := make([]string, 0, len(p.nodes))
	for i, n := range p.nodes {
		cur, style := "  ", st.Narration
		if i == p.cursor {
			cur, style = "› ", st.StageCurrent
		}
		state, stateStyle := p.text("running"), st.OK
		switch {
		case n.NoKubelet:
			state, stateStyle = p.text("nokubelet"), st.Dim
		case !n.Running:
			state, stateStyle = p.text("stopped"), st.Fail
		}
		out = append(out, style.Render(fmt.Sprintf("%s%-*s  ", cur, nameW, n.Name))+stateStyle.Render(state)+"  "+p.ready(n.Name))
	}
	return out
}

// ready is the node's Ready condition as the cluster view has it.
func (p *nodesPane) ready(name string) string {
	for _, n := range p.cluster.snap.Nodes {
		if n.Name == name && n.Ready {
			return p.styles.OK.Render("Ready")
		}
		if n.Name == name {
			return p.styles.Fail.Render("NotReady")
		}
	}
	return ""
}

// resultLine says what is being done, or what the last stop or start
// did.
func (p *nodesPane) resultLine() string {
	st := p.styles
	switch {
	case p.busy != "":
		return st.Warn.Render(p.result.In(p.lang))
	case p.resultErr != nil:
		return st.Fail.Render("✗ " + p.resultErr.Error())
	case p.result.En != "":
		return st.OK.Render("✓ " + p.result.In(p.lang))
	}
	return ""
}

// formatText is t with args put in, both languages.
func formatText(t flow.Text, args ...any) flow.Text {
	return flow.Text{En: fmt.Sprintf(t.En, args...), Zh: fmt.Sprintf(t.Zh, args...)}
}
