package scenarios_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// TestPlainPrinterPrintsStagesWhereNarrated: a stage recorded while an
// earlier step still runs is printed after the narration of the step
// that expects it, with the pod's other output held behind it, and a
// stage whose events straddle two steps gets one header.
func TestPlainPrinterPrintsStagesWhereNarrated(t *testing.T) {
	s, err := scenarios.Parse("order.yaml", []byte(`name: order
title: {en: Order, zh: 顺序}
summary: {en: S, zh: 摘要}
steps:
  - narration: {en: ONE, zh: 一}
    expect:
      - podStage: {pod: web, stage: 2}
  - narration: {en: TWO, zh: 二}
    expect:
      - podStage: {pod: web, stage: 3}
  - narration: {en: THREE, zh: 三}
    expect:
      - podStage: {pod: web, stage: 6}
`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := scenarios.NewPlainPrinter(&out, "en")
	p.Follow(s)
	pod := flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "web", UID: "u1"}
	step := func(i int) scenarios.StepInfo {
		return scenarios.StepInfo{Index: i, Total: 3, Narration: s.Steps[i-1].Narration}
	}
	ev := func(stage flow.Stage, summary string) flow.Event {
		return flow.Event{Stage: stage, Component: "c", Object: pod, Summary: summary}
	}
	p.StepStarted(step(1))
	p.Event(ev(2, "STORED"))
	p.Event(ev(3, "HEARD")) // during step 1, narrated by step 2
	p.Event(flow.Event{Component: "c", Object: pod, Etcd: &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: 9, PrevRevision: 8}})
	p.StepFinished(step(1), scenarios.StepResult{})
	p.StepStarted(step(2))
	p.Event(ev(6, "WATCHED")) // during step 2, narrated by step 3
	p.StepFinished(step(2), scenarios.StepResult{})
	p.StepStarted(step(3))
	p.Event(ev(6, "STARTED"))
	p.StepFinished(step(3), scenarios.StepResult{})
	text := out.String()
	order := []string{"ONE", "STORED", "TWO", "HEARD", "revision 9", "THREE", "[6/8]", "WATCHED", "STARTED"}
	at := 0
	for _, want := range order {
		i := strings.Index(text[at:], want)
		if i < 0 {
			t.Fatalf("%q not after the previous parts %v in\n%s", want, order, text)
		}
		at += i
	}
	if n := strings.Count(text, "[6/8]"); n != 1 {
		t.Errorf("stage 6 has %d headers, want 1:\n%s", n, text)
	}
}
