package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubesim/kubesim/internal/flow"
)

// nodeSession is a fakeSession whose cluster's kubelets can be stopped
// and started (NodeControl); it remembers the calls.
type nodeSession struct {
	*fakeSession
	mu      sync.Mutex
	running map[string]bool
	calls   []string
	// fail, when set, is what the next stop or start returns.
	fail error
}

var _ NodeControl = (*nodeSession)(nil)

func newNodeSession() *nodeSession {
	return &nodeSession{fakeSession: newFakeSession(StartOptions{Mode: flow.ModeStep, Speed: 1}),
		running: map[string]bool{"node-1": true, "node-2": true, "node-3": false}}
}

func (s *nodeSession) Kubelets(context.Context) ([]NodeKubelet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []NodeKubelet
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		out = append(out, NodeKubelet{Name: n, Running: s.running[n]})
	}
	return out, nil
}

func (s *nodeSession) StopKubelet(_ context.Context, name string) error { return s.set(name, false) }
func (s *nodeSession) StartKubelet(_ context.Context, name string) error {
	return s.set(name, true)
}

func (s *nodeSession) set(name string, run bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	verb := "stop"
	if run {
		verb = "start"
	}
	s.calls = append(s.calls, verb+" "+name)
	if err := s.fail; err != nil {
		s.fail = nil
		return err
	}
	s.running[name] = run
	return nil
}

func (s *nodeSession) callList() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.calls, ", ")
}

// nodeModel is a model of size w×h at stage 4 of the fixture whose
// session can stop kubelets; node-2 is NotReady in its cluster view.
func nodeModel(t *testing.T, w, h int, lang string) (*Model, *nodeSession) {
	t.Helper()
	m := newModel(context.Background(), &fakeDriver{}, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: lang, Now: fixedNow}, asciiRenderer())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.start("pod-create")
	s := newNodeSession()
	t.Cleanup(func() { _ = s.Close() })
	m.Update(sessionStartedMsg{gen: m.gen, sess: s})
	m.Update(tickMsg(fixedNow()))
	feed(m, flow.StageScheduled)
	snap := snapshotAt(flow.StageScheduled)
	snap.Nodes[1].Ready = false
	m.Update(clusterMsg{gen: m.gen, snap: snap})
	return m, s
}

// press hands key to keyPress, as Update does, and the message of the
// command it returns, if that is the node overlay's, back to Update.
func press(m *Model, k string) {
	cmd, _ := m.keyPress(keyMsg(k))
	m.refresh()
	if cmd == nil {
		return
	}
	if msg, ok := cmd().(kubeletMsg); ok {
		m.Update(msg)
	}
}

// TestNodesGolden shows the node overlay after node-1's kubelet was
// stopped, at 80×24 in both languages and at 120×40.
func TestNodesGolden(t *testing.T) {
	for _, tt := range []struct {
		w, h int
		lang string
	}{{80, 24, "en"}, {80, 24, "zh"}, {120, 40, "en"}} {
		t.Run(fmt.Sprintf("%dx%d-%s", tt.w, tt.h, tt.lang), func(t *testing.T) {
			m, _ := nodeModel(t, tt.w, tt.h, tt.lang)
			press(m, "K")
			press(m, "enter")
			view := m.View()
			checkSize(t, view, tt.w, tt.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// TestNodeOverlay stops and starts kubelets with the keys, and shows
// what came of it.
func TestNodeOverlay(t *testing.T) {
	m, s := nodeModel(t, 80, 24, "en")
	press(m, "K")
	if m.overlay != overlayNodes {
		t.Fatalf("after K the overlay is %d, want the node overlay", m.overlay)
	}
	v := m.View()
	for _, want := range []string{"› node-1  kubelet running  Ready", "node-2  kubelet running  NotReady", "node-3  kubelet stopped  Ready", "enter stop/start kubelet"} {
		if !strings.Contains(v, want) {
			t.Errorf("the node overlay lacks %q:\n%s", want, v)
		}
	}
	press(m, "enter") // node-1 runs: stop it
	press(m, "down")
	press(m, "down")
	press(m, "enter") // node-3 is stopped: start it
	if got, want := s.callList(), "stop node-1, start node-3"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
	v = m.View()
	for _, want := range []string{"node-1  kubelet stopped", "› node-3  kubelet running", "✓ kubelet of node-3 started: it registers the Node again and renews its Lease"} {
		if !strings.Contains(v, want) {
			t.Errorf("after stop node-1, start node-3 the overlay lacks %q:\n%s", want, v)
		}
	}

	s.mu.Lock()
	s.fail = errors.New("cluster: no kubelet runs for node node-3")
	s.mu.Unlock()
	press(m, "enter")
	if v := m.View(); !strings.Contains(v, "✗ cluster: no kubelet runs for node node-3") {
		t.Errorf("a failed stop is not shown:\n%s", v)
	}
	press(m, "L")
	if v := m.View(); !strings.Contains(v, "节点与它们的 kubelet") || !strings.Contains(v, "kubelet 运行中") {
		t.Errorf("after L the overlay is not in Chinese:\n%s", v)
	}
	press(m, "esc")
	if m.overlay != overlayNone {
		t.Errorf("esc left overlay %d open", m.overlay)
	}
	press(m, "K")
	press(m, "K")
	if m.overlay != overlayNone {
		t.Errorf("K K left overlay %d open", m.overlay)
	}
}

// TestNodeOverlayBusy: while a stop is under way, enter does nothing
// more, and an answer of an older session changes nothing.
func TestNodeOverlayBusy(t *testing.T) {
	m, s := nodeModel(t, 80, 24, "en")
	press(m, "K")
	stop, _ := m.keyPress(keyMsg("enter")) // the command is not run yet
	if again, _ := m.keyPress(keyMsg("enter")); again != nil {
		t.Error("a second enter while the first stop is under way made another")
	}
	if v := m.View(); !strings.Contains(v, "stopping the kubelet of node-1…") {
		t.Errorf("the overlay does not say the stop is under way:\n%s", v)
	}
	msg := stop().(kubeletMsg)
	msg.gen--
	m.Update(msg)
	if v := m.View(); !strings.Contains(v, "stopping the kubelet of node-1…") {
		t.Errorf("an older session's answer changed the overlay:\n%s", v)
	}
	msg.gen++
	m.Update(msg)
	if got := s.callList(); got != "stop node-1" {
		t.Errorf("calls %q, want one stop", got)
	}
	if v := m.View(); !strings.Contains(v, "✓ kubelet of node-1 stopped") {
		t.Errorf("the stop's result is not shown:\n%s", v)
	}
}

// TestNodeOverlayWithoutControl: a session that cannot stop kubelets,
// and no session at all, say so; q still quits.
func TestNodeOverlayWithoutControl(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	press(m, "K")
	if v := m.View(); !strings.Contains(v, "This session cannot stop kubelets.") {
		t.Errorf("the overlay of a session without node control:\n%s", v)
	}
	press(m, "enter") // nothing to do, nothing breaks
	press(m, "esc")
	m.start("pod-create")
	press(m, "K")
	if v := m.View(); !strings.Contains(v, "No cluster runs yet.") {
		t.Errorf("the overlay while no session runs:\n%s", v)
	}
	if _, quit := m.keyPress(keyMsg("q")); !quit {
		t.Error("q in the node overlay does not quit")
	}
}

// TestNodeOverlayRelists: while the overlay is open, each tick lists the
// nodes again, so that a kubelet stopped elsewhere (the scenario, kubesim
// node) shows stopped; a listing asked before a stop that comes after it
// is dropped.
func TestNodeOverlayRelists(t *testing.T) {
	m, s := nodeModel(t, 80, 24, "en")
	if cmd := m.relistKubelets(); cmd != nil {
		t.Error("a tick lists the nodes while the overlay is closed")
	}
	press(m, "K")
	s.mu.Lock()
	s.running["node-2"] = false
	s.mu.Unlock()
	early := m.relistKubelets() // asked before the stop, answered after it
	if early == nil {
		t.Fatal("a tick with the overlay open lists nothing")
	}
	if again := m.relistKubelets(); again != nil {
		t.Error("a tick lists again while a listing is under way")
	}
	stop, _ := m.keyPress(keyMsg("enter")) // stop node-1
	if busy := m.relistKubelets(); busy != nil {
		t.Error("a tick lists while a stop is under way")
	}
	late := early() // node-1 still runs in its answer
	stopped := stop()
	m.Update(stopped)
	m.Update(late)
	v := m.View()
	for _, want := range []string{"node-1  kubelet stopped", "node-2  kubelet stopped", "✓ kubelet of node-1 stopped"} {
		if !strings.Contains(v, want) {
			t.Errorf("the overlay lacks %q:\n%s", want, v)
		}
	}
	s.mu.Lock()
	s.running["node-2"] = true
	s.mu.Unlock()
	m.Update(m.relistKubelets()())
	if v := m.View(); !strings.Contains(v, "node-2  kubelet running") {
		t.Errorf("after node-2 started elsewhere and a tick, the overlay:\n%s", v)
	}
}
