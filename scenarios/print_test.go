package scenarios_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// hostile is a scenario whose texts carry terminal control sequences, as
// YAML's double-quoted escapes write them: a window title (OSC ended by
// BEL, and by ST), clear screen, a colour, a carriage return, a bell and
// an 8-bit CSI.
const hostile = `name: hostile
title: {en: "T\e]0;pwned\a", zh: "标题\e[2J"}
summary: {en: "S\e]2;pwned\e\\", zh: "摘要\r"}
steps:
  - narration: {en: "Before\e]0;pwned\aafter\e[2J\e[31m red\u009b2J\a.", zh: "旁白\e[H\e[2J"}
    http: {path: "/api\e[2J"}
`

// controlFree fails the test if s holds an escape or control character
// other than newline and tab.
func controlFree(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f) {
			t.Errorf("%s has control character %U: %q", what, r, s)
			return
		}
	}
}

func TestLoaderStripsControlSequences(t *testing.T) {
	s, err := scenarios.Parse("hostile.yaml", []byte(hostile))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	st := s.Steps[0]
	for what, got := range map[string]string{
		"title.en": s.Title.En, "title.zh": s.Title.Zh, "summary.en": s.Summary.En, "summary.zh": s.Summary.Zh,
		"narration.en": st.Narration.En, "narration.zh": st.Narration.Zh, "action": st.Action.String(),
	} {
		controlFree(t, what, got)
	}
	if got, want := st.Narration.En, "Beforeafter red2J."; got != want {
		t.Errorf("narration.en = %q, want %q", got, want)
	}
	if got, want := s.Title.En, "T"; got != want {
		t.Errorf("title.en = %q, want %q", got, want)
	}
}

// TestPlainPrinterStripsControlSequences: the plain output has no control
// sequences, neither from a scenario file (stripped when it is loaded) nor
// from what the cluster answered (stripped as it is printed).
func TestPlainPrinterStripsControlSequences(t *testing.T) {
	s, err := scenarios.Parse("hostile.yaml", []byte(hostile))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var out bytes.Buffer
	p := scenarios.NewPlainPrinter(&out, "en")
	st := s.Steps[0]
	info := scenarios.StepInfo{Index: 1, Total: 1, Narration: st.Narration, Action: st.Action.String()}
	p.StepStarted(info)
	// Straight from the cluster: an error message and an event.
	p.StepFinished(info, scenarios.StepResult{Status: 422, Message: "pods \"x\" is invalid: \x1b]0;pwned\x07 label\x1b[2J", Err: errors.New("failed\x1b]2;pwned\x1b\\")})
	p.Event(flow.Event{Stage: 1, Component: "apiserver\x1b[2J", Object: flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "web", UID: "u"}, Summary: "admitted\x1b]0;pwned\x07"})
	text := out.String()
	controlFree(t, "plain output", text)
	for _, want := range []string{"Beforeafter red2J.", "→ 422 pods \"x\" is invalid:  label", "✗ FAILED: failed", "admitted  (apiserver)"} {
		if !strings.Contains(text, want) {
			t.Errorf("plain output lacks %q:\n%s", want, text)
		}
	}
}

// TestPlainPrinterEvidence: a stage's evidence is written under its
// header as the Brief layout lays it out, in the printer's language; a
// followed pod's other writes are asides with what they changed.
func TestPlainPrinterEvidence(t *testing.T) {
	ref := flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "web", UID: "u"}
	v1 := `{"metadata":{"name":"web"},"spec":{}}`
	v2 := `{"metadata":{"name":"web"},"spec":{"nodeName":"node-1"}}`
	events := []flow.Event{
		{Stage: flow.StagePersisted, Object: ref, Etcd: &flow.EtcdWrite{Op: "create", Key: "/registry/pods/default/web", Revision: 7, Value: v1}},
		{Stage: flow.StageScheduled, Object: ref, Scheduling: &flow.SchedulingDecision{Attempt: 1, Chosen: "node-1", Nodes: []flow.NodeVerdict{{Node: "node-1", Feasible: true}}}},
		{Object: ref, Etcd: &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: 9, PrevRevision: 7, Value: v2}},
		{Object: flow.ObjectRef{UID: "other"}, Etcd: &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/x", Revision: 10, PrevRevision: 8}},
	}
	tests := []struct {
		lang string
		want string
	}{
		{"en", `
[2/8] Pod stored in etcd — pod web
    etcd create /registry/pods/default/web
    revision 7 = resourceVersion "7"
    value 37 bytes: {"metadata":{"name":"web"},"spec":{}}

[4/8] Node chosen and bound — pod web
    scheduling attempt 1: 1 node
    * node-1       fits; the only node that does, so scoring is skipped
    chosen: node-1
  · etcd update /registry/pods/default/web, revision 9 (previous 7)
    changed since revision 7:
      + spec.nodeName: "node-1"
`},
		{"zh", `
[2/8] Pod 写入 etcd — Pod web
    etcd create /registry/pods/default/web
    revision 7 = resourceVersion "7"
    值 37 字节：{"metadata":{"name":"web"},"spec":{}}

[4/8] 调度器选定节点并绑定 — Pod web
    第 1 次调度尝试：1 个节点
    * node-1       可行；只有它可行，因此不打分
    选中：node-1
  · etcd update /registry/pods/default/web, revision 9（上一个 7）
    相对 revision 7 的变化：
      + spec.nodeName: "node-1"
`},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			var out bytes.Buffer
			p := scenarios.NewPlainPrinter(&out, tc.lang)
			for _, ev := range events {
				p.Event(ev)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestPlainPrinterStepRequests: a step's requests are one line each,
// with their steps for an http step, in the printer's language.
func TestPlainPrinterStepRequests(t *testing.T) {
	tr := &flow.RequestTrace{Method: "GET", URI: "/api/v1/nodes", User: "student", Code: 403,
		Steps: []flow.Step{{Name: "authorized", Outcome: "denied", Detail: "no rule"}}}
	tests := []struct {
		name string
		lang string
		http []string
		want string
	}{
		{"not http", "en", nil, "  the API server's trace of this step's requests:\n    GET /api/v1/nodes → 403  (as student, no route, 0s)\n→ 403\n✓ ok\n"},
		{"http", "en", []string{"> GET /api/v1/nodes"}, "  > GET /api/v1/nodes\n  the API server's trace of this step's requests:\n    GET /api/v1/nodes → 403  (as student, no route, 0s)\n" +
			"            +0s  authorized    denied    no rule\n→ 403\n✓ ok\n"},
		{"zh", "zh", nil, "  API Server 对本步骤请求的追踪：\n    GET /api/v1/nodes → 403  (身份 student, 未匹配路由, 0s)\n→ 403\n✓ 通过\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			scenarios.NewPlainPrinter(&out, tc.lang).StepFinished(scenarios.StepInfo{Index: 1, Total: 1},
				scenarios.StepResult{Status: 403, HTTP: tc.http, Requests: []*flow.RequestTrace{tr}})
			if got := out.String(); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
