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
