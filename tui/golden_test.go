package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

var sizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// asciiRenderer renders without colours, as the golden files are.
func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

// startedModel returns a model of size w×h whose session (a fakeSession
// that plays nothing by itself) has started.
func startedModel(t *testing.T, w, h int, lang string) (*Model, *fakeSession) {
	t.Helper()
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Lang: lang, Now: fixedNow}, asciiRenderer())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.start("pod-create") // the command is not run: the test hands the session over
	s := newFakeSession(StartOptions{Mode: flow.ModeStep, Speed: 1})
	t.Cleanup(func() { _ = s.Close() })
	m.Update(sessionStartedMsg{gen: m.gen, sess: s})
	m.Update(tickMsg(fixedNow()))
	return m, s
}

// feed hands the model the fixture up to stage s, etcd's history, and
// what the TUI's own watches would have seen.
func feed(m *Model, s flow.Stage) {
	m.Update(stepMsg{gen: m.gen, up: testStep})
	m.Update(flowEventsMsg{gen: m.gen, evs: upTo(s)})
	for k, v := range history() {
		m.Update(historyMsg{gen: m.gen, key: k, entry: historyEntry{Value: v}})
	}
	m.Update(kubeEventsMsg{gen: m.gen, evs: kubeEventsUpTo(s)})
	m.Update(clusterMsg{gen: m.gen, snap: snapshotAt(s)})
}

func kubeEventsUpTo(s flow.Stage) []kubeEvent {
	var out []kubeEvent
	if s >= flow.StageScheduled {
		out = append(out, kubeEvent{Time: t0.Add(3 * time.Second), Type: "Normal", Reason: "Scheduled", Object: "pod/nginx", Message: "Successfully assigned default/nginx to node-2", Count: 1})
	}
	if s >= flow.StageKubeletNotified {
		out = append(out,
			kubeEvent{Time: t0.Add(6 * time.Second), Type: "Normal", Reason: "Pulling", Object: "pod/nginx", Message: `Pulling image "nginx:1.27"`, Count: 1},
			kubeEvent{Time: t0.Add(7 * time.Second), Type: "Normal", Reason: "Pulled", Object: "pod/nginx", Message: `Successfully pulled image "nginx:1.27" in 800ms`, Count: 1},
			kubeEvent{Time: t0.Add(7 * time.Second), Type: "Normal", Reason: "Created", Object: "pod/nginx", Message: "Created container: nginx", Count: 1},
			kubeEvent{Time: t0.Add(7 * time.Second), Type: "Normal", Reason: "Started", Object: "pod/nginx", Message: "Started container nginx", Count: 1})
	}
	return out
}

func snapshotAt(s flow.Stage) clusterSnapshot {
	gi := int64(1 << 30)
	nodes := []nodeInfo{
		{Name: "node-1", Ready: true, CPU: 4000, Memory: 8 * gi, ReqCPU: 1000, ReqMemory: 2 * gi, Pods: []podInfo{{"default", "web-0", "Running"}}},
		{Name: "node-2", Ready: true, CPU: 4000, Memory: 8 * gi},
		{Name: "node-3", Ready: true, CPU: 1000, Memory: 2 * gi, ReqCPU: 900, ReqMemory: gi / 2, Pods: []podInfo{{"default", "batch-0", "Running"}}},
	}
	pod := podInfo{"default", "nginx", "Pending"}
	if s >= flow.StageStatusPersisted {
		pod.Phase = "Running"
	}
	snap := clusterSnapshot{Nodes: nodes}
	switch {
	case s >= flow.StageBindingPersisted:
		snap.Nodes[1].Pods = []podInfo{pod}
		snap.Nodes[1].ReqCPU, snap.Nodes[1].ReqMemory = 250, 64<<20
	case s >= flow.StagePersisted:
		snap.Pending = []podInfo{pod}
	}
	return snap
}

// TestPipelineGolden renders the screen at each of the eight stages, held
// at the boundary after it, at 80×24 and 120×40.
func TestPipelineGolden(t *testing.T) {
	for _, sz := range sizes {
		for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
			t.Run(fmt.Sprintf("%dx%d/stage-%d", sz.w, sz.h, int(s)), func(t *testing.T) {
				m, _ := startedModel(t, sz.w, sz.h, "en")
				feed(m, s)
				view := m.View()
				checkSize(t, view, sz.w, sz.h)
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// TestChineseGolden renders stage 4 in Chinese.
func TestChineseGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, _ := startedModel(t, sz.w, sz.h, "zh")
			feed(m, flow.StageScheduled)
			view := m.View()
			checkSize(t, view, sz.w, sz.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}

// checkSize fails unless view is exactly w×h cells.
func checkSize(t *testing.T, view string, w, h int) {
	t.Helper()
	if got := lipgloss.Height(view); got != h {
		t.Errorf("view height = %d, want %d", got, h)
	}
	for i, row := range splitLines(view) {
		if got := lipgloss.Width(row); got != w {
			t.Errorf("row %d width = %d, want %d: %q", i, got, w, row)
		}
	}
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
