package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesim/kubesim/internal/flow"
)

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// collect runs cmd and the commands it batches, each in its own
// goroutine, and returns the first message that want accepts.
func collect(t *testing.T, cmd tea.Cmd, want func(tea.Msg) bool) tea.Msg {
	t.Helper()
	out := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			out <- msg
		}()
	}
	run(cmd)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case msg := <-out:
			if want(msg) {
				return msg
			}
		case <-deadline:
			t.Fatal("no wanted message within 5s")
			return nil
		}
	}
}

func TestGateKeys(t *testing.T) {
	m, s := startedModel(t, 120, 40, "en")
	g := s.Gate()

	m.Update(keyMsg("p"))
	if got := g.Mode(); got != flow.ModeAuto {
		t.Errorf("after p: gate mode = %v, want auto", got)
	}
	m.Update(keyMsg("p"))
	if got := g.Mode(); got != flow.ModeStep {
		t.Errorf("after p p: gate mode = %v, want step", got)
	}
	m.Update(keyMsg("+"))
	if got, want := g.Delay(), AutoDelay(2); got != want {
		t.Errorf("after +: gate delay = %v, want %v", got, want)
	}
	m.Update(keyMsg("-"))
	m.Update(keyMsg("-"))
	if got, want := g.Delay(), AutoDelay(0.5); got != want {
		t.Errorf("after + - -: gate delay = %v, want %v", got, want)
	}

	// space lets the held boundary go, exactly as Advance does
	released := make(chan error, 1)
	go func() {
		released <- g.Wait(context.Background(), flow.Boundary{Point: flow.PointBeforeScheduling, Component: "scheduler"})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatalf("the boundary was never held: %v", err)
	}
	m.Update(keyMsg(" "))
	select {
	case err := <-released:
		if err != nil {
			t.Errorf("Wait = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("space did not release the held boundary")
	}
}

func TestLanguageKey(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	feed(m, flow.StageScheduled)
	m.Update(keyMsg("L"))
	if v := m.View(); !strings.Contains(v, "调度绑定") || !strings.Contains(v, "单步") {
		t.Errorf("after L the view is not in Chinese:\n%s", v)
	}
	m.Update(keyMsg("L"))
	if v := m.View(); !strings.Contains(v, "scheduled") {
		t.Errorf("after L L the view is not in English:\n%s", v)
	}
}

func TestRestartClosesAndStartsAgain(t *testing.T) {
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeStep, Speed: 1, Now: fixedNow}, asciiRenderer())
	defer m.sessions.closeAll()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	started := func(msg tea.Msg) bool { _, ok := msg.(sessionStartedMsg); return ok }
	m.Update(collect(t, m.Init(), started))
	first := d.session()
	m.Update(flowEventsMsg{gen: m.gen, evs: upTo(flow.StageScheduled)})

	_, cmd := m.Update(keyMsg("r"))
	if m.tracks.followed() != nil {
		t.Error("restart kept the old pod's stages")
	}
	msg := collect(t, cmd, started)
	if !first.isClosed() {
		t.Error("restart did not close the old session")
	}
	m.Update(msg)
	if m.sess == nil || m.sess == Session(first) {
		t.Fatalf("after restart the session is %v, want a new one", m.sess)
	}
	if got := strings.Join(d.starts, ","); got != "pod-create,pod-create" {
		t.Errorf("starts = %s, want pod-create twice", got)
	}
	// a message of the old session changes nothing
	m.Update(flowEventsMsg{gen: m.gen - 1, evs: upTo(flow.StageScheduled)})
	if m.tracks.followed() != nil {
		t.Error("an event of the old session reached the new one")
	}
}

func TestPickerStartsChosenScenario(t *testing.T) {
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Now: fixedNow}, asciiRenderer())
	defer m.sessions.closeAll()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	collect(t, cmd, func(msg tea.Msg) bool { _, ok := msg.(sessionStartedMsg); return ok })
	if got := strings.Join(d.starts, ","); got != "watch-mechanics" {
		t.Errorf("starts = %q, want watch-mechanics", got)
	}
}

func TestStartErrorShown(t *testing.T) {
	d := &fakeDriver{}
	m := newModel(context.Background(), d, Options{Scenario: "broken", Now: fixedNow}, asciiRenderer())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(collect(t, m.Init(), func(msg tea.Msg) bool { _, ok := msg.(sessionStartedMsg); return ok }))
	if v := m.View(); !strings.Contains(v, "no such scenario") {
		t.Errorf("the start error is not shown:\n%s", v)
	}
}

// TestFollowOnePodByUID: the pipeline follows the first pod that
// reaches stage 1 in the current step; other pods' events stay apart.
func TestFollowOnePodByUID(t *testing.T) {
	other := func(e flow.Event) flow.Event {
		e.Object.UID, e.Object.Name = "uid-other", "other"
		return e
	}
	a := noHolds(upTo(flow.StageStatusPersisted))
	tests := []struct {
		name      string
		evs       []flow.Event
		newStep   bool
		more      []flow.Event
		wantName  string
		wantStage flow.Stage
	}{
		{"first pod wins", []flow.Event{a[0], other(a[0]), a[1], other(a[1]), other(a[3])}, false, nil, "nginx", flow.StagePersisted},
		{"other pod's later stages do not move it", []flow.Event{a[0], other(a[0]), other(a[1]), other(a[3]), other(a[4])}, false, nil, "nginx", flow.StageAdmitted},
		{"next step follows the next pod", []flow.Event{a[0], a[1]}, true, []flow.Event{other(a[0])}, "other", flow.StageAdmitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTrackSet()
			for _, e := range tt.evs {
				ts.add(e)
			}
			if tt.newStep {
				ts.next = true
				for _, e := range tt.more {
					ts.add(e)
				}
			}
			f := ts.followed()
			if f == nil {
				t.Fatal("no pod followed")
			}
			if f.ref.Name != tt.wantName || f.reached() != tt.wantStage {
				t.Errorf("followed %s at stage %d, want %s at stage %d", f.ref.Name, f.reached(), tt.wantName, tt.wantStage)
			}
		})
	}
}

func TestEtcdTabDiff(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	m.Update(stepMsg{gen: m.gen, up: testStep})
	_, cmd := m.Update(flowEventsMsg{gen: m.gen, evs: upTo(flow.StageBindingPersisted)})
	msg := collect(t, cmd, func(msg tea.Msg) bool { _, ok := msg.(historyMsg); return ok }).(historyMsg)
	if want := (historyKey{"/registry/pods/default/nginx", 412}); msg.key != want || msg.entry.Err != nil {
		t.Fatalf("history read %v (err %v), want %v", msg.key, msg.entry.Err, want)
	}
	if v := m.View(); !strings.Contains(v, "reading revision 412") {
		t.Errorf("before the history arrives the pane does not say it is reading it:\n%s", v)
	}
	m.Update(msg)
	v := m.View()
	for _, want := range []string{"diff against revision 412", `+    "nodeName": "node-2"`, `-    "resourceVersion": "412"`, `+    "resourceVersion": "415"`} {
		if !strings.Contains(v, want) {
			t.Errorf("etcd tab lacks %q:\n%s", want, v)
		}
	}
	// compacted history: the diff falls back on the recorded write
	m.Update(historyMsg{gen: m.gen, key: msg.key, entry: historyEntry{Err: errors.New("required revision has been compacted")}})
	v = m.View()
	for _, want := range []string{"history unavailable", `+    "nodeName": "node-2"`} {
		if !strings.Contains(v, want) {
			t.Errorf("after compaction the etcd tab lacks %q:\n%s", want, v)
		}
	}
}

func TestWatchTabChunkFraming(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageSchedulerNotified)
	v := m.View()
	frame := noHolds(upTo(flow.StageSchedulerNotified))[3].Watch.Frame
	for _, want := range []string{"ADDED  resourceVersion 412  → system:kube-scheduler", "one HTTP/1.1 chunk", strings.ToLower(strconvHex(len(frame))) + `\r\n`, `{"type":"ADDED","object":{"kind":"Pod"`} {
		if !strings.Contains(v, want) {
			t.Errorf("watch tab lacks %q:\n%s", want, v)
		}
	}
}

// noHolds returns evs without the gate's Hold events.
func noHolds(evs []flow.Event) []flow.Event {
	var out []flow.Event
	for _, e := range evs {
		if e.Hold == nil {
			out = append(out, e)
		}
	}
	return out
}

func strconvHex(n int) string { return strings.TrimLeft(strings.ToLower(hex4(n)), "0") }

func hex4(n int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[n>>12&15], digits[n>>8&15], digits[n>>4&15], digits[n&15]})
}

func TestMarkdownExport(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageStatusPersisted)
	done := testStep
	done.Done, done.Result = true, "pod/nginx created"
	m.Update(stepMsg{gen: m.gen, up: done})
	m.Update(sessionDoneMsg{gen: m.gen})
	path := filepath.Join(t.TempDir(), "walk.md")
	if err := writeMarkdownFile(path, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"## Create a pod: the eight stages (`pod-create`)",
		"`apply Pod default/nginx` → pod/nginx created",
		"Result: every expectation held.",
		"### Pod default/nginx (uid " + testUID + ")",
		"#### 1/8 Request admitted", "route POST /api/v1/namespaces/{namespace}/pods", "→ 201, 1187 bytes",
		"#### 4/8 Node chosen and bound", "node-3  ✗ NodeResourcesFit: Insufficient cpu",
		"#### 5/8 Binding stored in etcd", `+    "nodeName": "node-2"`,
		"#### 6/8 Kubelet creates the containers", "HTTP/2 DATA frames", "0000  00 00 01 2c 6b 38 73 00",
		"pull    800ms  ok  nginx nginx:1.27",
		"PATCH pods/nginx/status  as system:node:node-2  → phase Running",
		"revision 418  (previous 415)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "\x1b[") {
		t.Error("markdown has terminal escapes")
	}
}

func TestNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if got := newRenderer(io.Discard, false).ColorProfile(); got != termenv.Ascii {
		t.Errorf("with NO_COLOR the profile is %v, want Ascii", got)
	}
}

func TestSmallAndResize(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "en")
	feed(m, flow.StageScheduled)
	for _, sz := range []struct{ w, h int }{{80, 24}, {100, 30}, {160, 50}, {120, 40}} {
		m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		checkSize(t, m.View(), sz.w, sz.h)
	}
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 10})
	if v := m.View(); !strings.Contains(v, "too small") {
		t.Errorf("at 50×10: %q, want a too-small note", v)
	}
}

// TestRun runs the real program on a pipe: it quits on q, closes the
// session it started and writes the markdown walkthrough.
func TestRun(t *testing.T) {
	d := &fakeDriver{play: playStages}
	in, inW := io.Pipe()
	var out lockedBuffer
	md := filepath.Join(t.TempDir(), "walk.md")
	cast := filepath.Join(t.TempDir(), "walk.cast")
	errc := make(chan error, 1)
	go func() {
		errc <- Run(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeAuto, Speed: 0, NoColor: true,
			Markdown: md, Record: cast, Input: in, Output: &out, Now: fixedNow})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "Scenario finished") {
		if time.Now().After(deadline) {
			t.Fatalf("no summary within 5s at speed 0; output:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := inW.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after q")
	}
	_ = inW.Close()
	if !d.session().isClosed() {
		t.Error("Run left the session open")
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "#### 8/8 Status stored in etcd") {
		t.Errorf("markdown lacks stage 8:\n%s", b)
	}
	checkCast(t, cast, "Scenario finished")
}

// checkCast checks that path is an asciicast v2 recording whose output
// contains want.
func checkCast(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	var hdr struct{ Version, Width, Height int }
	if err := json.Unmarshal([]byte(rows[0]), &hdr); err != nil || hdr.Version != 2 || hdr.Width != 80 || hdr.Height != 24 {
		t.Fatalf("cast header %s (%v), want version 2, 80×24", rows[0], err)
	}
	var all strings.Builder
	for _, r := range rows[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(r), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("cast event %s: %v", r, err)
		}
		if ev[1] == "o" {
			all.WriteString(ev[2].(string))
		}
	}
	if !strings.Contains(all.String(), want) {
		t.Errorf("the recording's output lacks %q", want)
	}
}

func TestKubeWatch(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "nginx", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "big.1", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "big"}, Type: "Warning", Reason: "FailedScheduling",
		Message: "0/1 nodes are available: 1 Insufficient cpu.", Count: 1, LastTimestamp: metav1.NewTime(t0)}
	w := startKubeWatch(fake.NewSimpleClientset(node, pod, pending, ev))
	defer w.stop()

	deadline := time.Now().Add(5 * time.Second)
	var snap clusterSnapshot
	for time.Now().Before(deadline) {
		s, ok := w.nextSnapshot()
		if !ok {
			t.Fatal("watch stopped")
		}
		if len(s.Nodes) == 1 && len(s.Nodes[0].Pods) == 1 && len(s.Pending) == 1 {
			snap = s
			break
		}
	}
	if len(snap.Nodes) != 1 {
		t.Fatalf("no complete snapshot before the deadline: %+v", snap)
	}
	n := snap.Nodes[0]
	if !n.Ready || n.CPU != 4000 || n.ReqCPU != 500 || n.ReqMemory != 128<<20 {
		t.Errorf("node = %+v, want Ready, cpu 4000m, requests 500m and 128Mi", n)
	}
	if snap.Pending[0].Name != "big" {
		t.Errorf("pending = %+v, want big", snap.Pending)
	}
	got := w.nextEvents()
	if len(got) != 1 || got[0].Reason != "FailedScheduling" || got[0].Object != "pod/big" {
		t.Errorf("events = %+v, want FailedScheduling of pod/big", got)
	}
}

// lockedBuffer is a bytes.Buffer the program writes to while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
