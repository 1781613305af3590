package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubesim/kubesim/internal/flow"
)

// framesTranscript is the start of watch-mechanics's http2-frames step as
// the runner hands it over (lines of a real run).
var framesTranscript = []flow.Text{
	{En: `* TLS to 127.0.0.1:33435, ALPN offering h2: the server chose "h2"`, Zh: `* TLS 连到 127.0.0.1:33435，ALPN 只提供 h2：服务端选了 "h2"`},
	{En: `> "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" (the client preface, 24 bytes)`, Zh: `> "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"（客户端连接前言，24 字节）`},
	{En: "> length=6 type=SETTINGS flags=0x0 stream=0  ENABLE_PUSH=0"},
	{En: "> length=91 type=HEADERS flags=END_STREAM|END_HEADERS stream=1  :method=GET"},
	{En: "< length=30 type=SETTINGS flags=0x0 stream=0  MAX_FRAME_SIZE=262144"},
	{En: "<   MAX_CONCURRENT_STREAMS=100 MAX_HEADER_LIST_SIZE=1048896"},
	{En: "< length=87 type=HEADERS flags=END_HEADERS stream=1  :status=200"},
	{En: `< length=329 type=DATA flags=0x0 stream=3  {"type":"ADDED","object":{"kind":"…`},
	{En: "  stream 3: event ADDED Namespace kube-system resourceVersion 4", Zh: "  stream 3：event ADDED Namespace kube-system resourceVersion 4"},
	{En: "> length=4 type=RST_STREAM flags=0x0 stream=1  CANCEL"},
	{En: "* connection closed", Zh: "* 连接已关闭"},
}

var framesStep = StepUpdate{Index: 4, Total: 4, ID: "http2-frames",
	Narration: flow.Text{En: "Now the HTTP/2 connection itself, frame by frame.", Zh: "现在看 HTTP/2 连接本身，一帧一帧。"},
	Action:    "http2Frames 2 watches on one connection"}

// podlessModel is a model playing watch-mechanics (no pod followed) in
// auto mode.
func podlessModel(t *testing.T, w, h int, lang string) *Model {
	t.Helper()
	m, _ := startedModel(t, w, h, lang)
	m.mode = flow.ModeAuto
	m.scenario = testInfos[2]
	return m
}

// paneRows returns the rows of the view's evidence pane (the right
// column, or the whole width in a run without pods), cut to the pane's
// inner width, without trailing spaces.
func paneRows(m *Model) []string {
	left := 0 // a run without pods: the evidence is the whole width
	if m.podPane() {
		left = m.pipeline.width + 2
	}
	var out []string
	for _, row := range strings.Split(ansi.Strip(m.View()), "\n") {
		if ansi.StringWidth(row) < m.width || ansi.Cut(row, left, left+1) != "│" {
			continue
		}
		out = append(out, strings.TrimRight(ansi.Cut(row, left+1, m.width-1), " "))
	}
	return out
}

// TestStepTabTranscript: a finished step's transcript (HTTP/2 frames) is
// shown in the step tab, opened by itself in a scenario without a pod,
// fitted to the pane at 80×24 and scrollable to its last line.
func TestStepTabTranscript(t *testing.T) {
	m := podlessModel(t, 80, 24, "en")
	running := framesStep
	m.Update(stepMsg{gen: m.gen, up: running})
	if m.evidence.tab != tabStep {
		t.Fatalf("a step of a scenario without a pod opens tab %d, want the step tab", m.evidence.tab)
	}
	if v := strings.Join(paneRows(m), "\n"); !strings.Contains(v, "running…") || strings.Contains(v, "waiting for a pod") {
		t.Errorf("the running step's tab:\n%s", v)
	}
	done := running
	done.Done, done.Result, done.Transcript = true, "200", framesTranscript
	m.Update(stepMsg{gen: m.gen, up: done})
	rows := paneRows(m)
	v := strings.Join(rows, "\n")
	for _, want := range []string{"[step]", "Step 4/4 · http2-frames", "$ http2Frames 2 watches", "→ 200",
		"* TLS to 127.0.0.1:33435, ALPN offering h2:", "> length=6 type=SETTINGS"} {
		if !strings.Contains(v, want) {
			t.Errorf("step tab lacks %q:\n%s", want, v)
		}
	}
	for _, r := range rows {
		if w := ansi.StringWidth(r); w > m.evidence.width {
			t.Errorf("row %q is %d cells, the pane %d", r, w, m.evidence.width)
		}
	}
	// the frames wrap (no cut: every word is there) and scroll
	body := strings.Join(m.evidence.body, "\n")
	for _, want := range []string{"MAX_CONCURRENT_STREAMS=100", ":status=200", "CANCEL", "stream 3: event ADDED"} {
		if !strings.Contains(body, want) {
			t.Errorf("the tab's lines lack %q:\n%s", want, body)
		}
	}
	for i := 0; i < len(m.evidence.body); i++ {
		m.Update(keyMsg("tab")) // focus the evidence pane
		if m.focus == focusEvidence {
			break
		}
	}
	for i := 0; i < len(m.evidence.body); i++ {
		m.Update(keyMsg("down"))
	}
	if v := strings.Join(paneRows(m), "\n"); !strings.Contains(v, "* connection closed") {
		t.Errorf("scrolled to the bottom, the tab does not show the last line:\n%s", v)
	}
}

// TestStepTabChinese: the step tab speaks the TUI's language, the
// transcript's own words included.
func TestStepTabChinese(t *testing.T) {
	m := podlessModel(t, 80, 24, "zh")
	up := framesStep
	up.Done, up.Result, up.Transcript = true, "200", framesTranscript
	m.Update(stepMsg{gen: m.gen, up: up})
	v := strings.Join(paneRows(m), "\n")
	for _, want := range []string{"[步骤]", "第 4/4 步 · http2-frames", "ALPN 只提供 h2", "客户端连"} {
		if !strings.Contains(v, want) {
			t.Errorf("step tab lacks %q:\n%s", want, v)
		}
	}
}

// TestStepTabFollowsThePod: in a pod's scenario in step mode the step
// tab opens by itself when a step with a transcript ends, stays while
// the gate holds the next step, gives way to the pod once the next step
// runs, and stays where the learner put it.
func TestStepTabFollowsThePod(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	now := fixedNow()
	m.clock = func() time.Time { return now }
	feed(m, flow.StageScheduled)
	if m.evidence.tab == tabStep {
		t.Fatalf("the step tab is open while the pod is followed and no step has evidence")
	}
	up := testStep
	up.Done, up.Result, up.Transcript = true, "201", []flow.Text{{En: "> POST /api/v1/namespaces/default/pods"}, {En: "< HTTP/2.0 201 Created"}}
	m.Update(stepMsg{gen: m.gen, up: up})
	if m.evidence.tab != tabStep {
		t.Fatalf("a finished step with a transcript does not open the step tab")
	}
	next := StepUpdate{Index: 2, Total: 2, ID: "second", Action: "apply Pod default/web"}
	m.Update(stepMsg{gen: m.gen, up: next})
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(next, false)}})
	if m.evidence.tab != tabStep {
		t.Errorf("the step tab closed while the gate holds the next step")
	}
	if v := strings.Join(m.evidence.body, "\n"); !strings.Contains(v, "next Step 2/2 · second") || !strings.Contains(v, "< HTTP/2.0 201 Created") {
		t.Errorf("step tab while the next step is held:\n%s", v)
	}
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(next, true)}})
	if m.evidence.tab == tabStep {
		t.Errorf("in step mode the step tab stays once the learner let the next step run")
	}
	for m.evidence.tab != tabStep {
		m.Update(keyMsg("]"))
	}
	m.Update(tickMsg(now.Add(time.Minute)))
	if m.evidence.tab != tabStep {
		t.Errorf("the step tab the learner chose with ] did not stay")
	}
}

// TestStepTabLingers: in auto mode the step tab stays stepTabLinger
// after a step with a transcript ended, then gives way to the pod.
func TestStepTabLingers(t *testing.T) {
	m, _ := startedModel(t, 80, 24, "en")
	m.mode = flow.ModeAuto
	now := fixedNow()
	m.clock = func() time.Time { return now }
	feed(m, flow.StageScheduled)
	up := testStep
	up.Done, up.Result, up.Transcript = true, "201", []flow.Text{{En: "< HTTP/2.0 201 Created"}}
	m.Update(stepMsg{gen: m.gen, up: up})
	next := StepUpdate{Index: 2, Total: 2, ID: "second", Action: "apply Pod default/web"}
	m.Update(stepMsg{gen: m.gen, up: next})
	m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{nextStepHold(next, false), nextStepHold(next, true)}})
	now = now.Add(stepTabLinger - time.Second)
	m.Update(tickMsg(now))
	if m.evidence.tab != tabStep {
		t.Errorf("the step tab closed before its linger")
	}
	now = now.Add(time.Second)
	m.Update(tickMsg(now))
	if m.evidence.tab == tabStep {
		t.Errorf("the step tab stays after its linger")
	}
}

// nextStepHold is the gate's hold of up before its action (or its
// release).
func nextStepHold(up StepUpdate, released bool) flow.Event {
	b := flow.Boundary{Point: flow.PointNextStep, Component: "scenario",
		Object: flow.ObjectRef{Kind: "Step", Name: stepHoldName(up)}}
	return flow.Event{Component: "gate", Time: t0, Hold: &flow.Hold{Boundary: b, Released: released}}
}

// stepHoldName is the name the runner gives a step's hold: "2/5 its-id".
func stepHoldName(up StepUpdate) string {
	return fmt.Sprintf("%d/%d %s", up.Index, up.Total, up.ID)
}

// TestTranscriptLineFit: a transcript line too wide for the pane is
// broken at words, or, when one word (a path) is longer than a row,
// where the row ends; its rows hang under the text after the marker,
// and nothing of it is lost.
func TestTranscriptLineFit(t *testing.T) {
	v := evidenceView{st: newStyles(asciiRenderer()), lang: "en", width: 30}
	for _, tc := range []struct {
		line string
		hang int
		want []string
	}{
		{">   :path=/api/v1/namespaces?fieldSelector=metadata.name%3Ddefault", 4,
			[]string{">   :path=/api/v1/namespaces?f", "    ieldSelector=metadata.name", "    %3Ddefault"}},
		{"< length=87 type=HEADERS flags=END_HEADERS stream=1", 2,
			[]string{"< length=87 type=HEADERS", "  flags=END_HEADERS stream=1"}},
		{"  stream 3: event ADDED Namespace kube-system", 2,
			[]string{"  stream 3: event ADDED", "  Namespace kube-system"}},
	} {
		ln := transcriptLine(tc.line, v.width)
		if ln.Hang != tc.hang {
			t.Errorf("%q: hang %d, want %d", tc.line, ln.Hang, tc.hang)
		}
		got := v.draw([]flow.Line{ln})
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q drawn at 30 columns:\n%s\nwant:\n%s", tc.line, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestStepTabResultCut: an http step's result (a whole response body)
// takes one row when the transcript has the body; without a transcript
// it is cut after markdownResultMax characters.
func TestStepTabResultCut(t *testing.T) {
	v := evidenceView{st: newStyles(asciiRenderer()), lang: "en", width: 48}
	body := "200 " + strings.Repeat(`{"type":"ADDED"} `, 40)
	up := StepUpdate{Index: 1, Total: 1, Action: "http GET /api/v1/namespaces?watch=true", Done: true, Result: body,
		Transcript: []flow.Text{{En: "< HTTP/1.1 200 OK"}}}
	got := v.draw(v.stepBlock(up, nil, false))
	if got[2] != fit(`→ 200 {"type":"ADDED"} {"type":"ADDED"} {"type":"ADDED"}`, 48) || strings.Contains(got[3], "ADDED") {
		t.Errorf("with a transcript the result is not one row:\n%s", strings.Join(got, "\n"))
	}
	up.Transcript = nil
	got = v.draw(v.stepBlock(up, nil, false))
	n := strings.Count(strings.Join(got, " "), `"ADDED"`)
	if n == 40 || n == 0 || !strings.Contains(strings.Join(got, "\n"), "…") {
		t.Errorf("without a transcript the result is not cut (%d of 40 events):\n%s", n, strings.Join(got, "\n"))
	}
}

// TestMultiLineResult: a result with line breaks (a /readyz?verbose
// body) stays on the narration's one row and the summary's: the screen
// keeps its size and its header.
func TestMultiLineResult(t *testing.T) {
	m := podlessModel(t, 80, 24, "en")
	up := StepUpdate{Index: 1, Total: 1, ID: "readyz", Action: "http GET /readyz?verbose (request, HTTP/2)", Done: true,
		Result: "200 [+]ping ok\n[+]etcd ok\n[+]poststarthook/rbac/bootstrap-roles ok\nreadyz check passed"}
	m.Update(stepMsg{gen: m.gen, up: up})
	for _, done := range []bool{false, true} {
		if done {
			m.Update(sessionDoneMsg{gen: m.gen})
		}
		rows := strings.Split(plainView(m), "\n")
		if len(rows) != 24 || !strings.HasPrefix(rows[0], "kubesim ") {
			t.Errorf("summary %v: %d rows, the first %q:\n%s", done, len(rows), rows[0], strings.Join(rows, "\n"))
		}
		if !strings.Contains(plainView(m), "→ 200 [+]ping ok [+]etcd ok") {
			t.Errorf("summary %v: the result is not on one row:\n%s", done, plainView(m))
		}
	}
}
