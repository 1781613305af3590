package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

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

func TestMarkdownStepResult(t *testing.T) {
	long := strings.Repeat("x", 500)
	for _, tc := range []struct {
		s    StepUpdate
		want string
	}{
		{StepUpdate{}, ""},
		{StepUpdate{Action: "apply Pod default/web", Result: "201 Pod default/web created"}, "`apply Pod default/web` → 201 Pod default/web created"},
		{StepUpdate{Action: "http GET /x", Result: "200 " + long}, "`http GET /x` → 200 " + strings.Repeat("x", markdownResultMax-4) + "…"},
		{StepUpdate{Result: "a\n  b"}, "→ a b"},
	} {
		if got := markdownStepResult(tc.s); got != tc.want {
			t.Errorf("markdownStepResult(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestMarkdownExportInChinese: the export's own words follow the language.
func TestMarkdownExportInChinese(t *testing.T) {
	m, _ := startedModel(t, 120, 40, "zh")
	feed(m, flow.StageStatusPersisted)
	m.Update(sessionDoneMsg{gen: m.gen})
	path := filepath.Join(t.TempDir(), "walk.md")
	if err := writeMarkdownFile(path, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# kubesim 演练记录", "结果：所有预期都成立。", "### Pod default/nginx（uid " + testUID + "）"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b)
		}
	}
}

// TestMarkdownTranscriptAndQuestion: under each step, its transcript as
// a code block, and its question with the learner's answer and the
// run's.
func TestMarkdownTranscriptAndQuestion(t *testing.T) {
	m, s := startedModel(t, 80, 24, "en")
	rel := heldStep(t, m, s, questionStep(1))
	m.Update(keyMsg("1"))
	passed(t, m, rel, questionStep(1), 1)
	frames := framesStep
	frames.Index, frames.Total = 2, 3
	frames.Done, frames.Result, frames.Transcript = true, "200", append([]flow.Text{{En: "> a line with ``` in it"}}, framesTranscript...)
	m.Update(stepMsg{gen: m.gen, up: frames})
	m.Update(sessionDoneMsg{gen: m.gen})
	var b strings.Builder
	if err := writeMarkdown(&b, m.played, m.etcdHistory, "en"); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"1. Before the scheduler runs, guess.\n   `apply Pod default/nginx` → pod/nginx created\n\n   **Question:** Which node will the scheduler choose for nginx?\n\n   1. node-1\n   2. node-2\n",
		"   → wrong: you answered 1; the run's answer: 2. node-2\n",
		"2. Now the HTTP/2 connection itself, frame by frame.\n   `http2Frames 2 watches on one connection` → 200\n\n   What the action saw:\n\n   ````text\n   > a line with ``` in it\n",
		"   > length=6 type=SETTINGS flags=0x0 stream=0  ENABLE_PUSH=0\n",
		"   * connection closed\n   ````\n",
		"Questions: 0 of 1 right",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	if err := writeMarkdown(&b, m.played, m.etcdHistory, "zh"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**问题：**调度器会为 nginx 选择哪个节点？", "答错了：你选了 1；实际结果：2. node-2", "动作所见：", "* 连接已关闭"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Chinese markdown lacks %q:\n%s", want, b.String())
		}
	}
}
