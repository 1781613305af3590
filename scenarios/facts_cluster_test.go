package scenarios_test

import (
	"strings"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// factsScenario asks about a pod's phase while it runs and once it is
// deleted, and counts pods by label and the cluster's nodes.
const factsScenario = `name: facts
title: {en: Facts, zh: 事实}
summary: {en: The phase and count facts., zh: phase 和个数两种事实。}
cluster: {nodes: 1}
steps:
  - id: running
    narration: {en: Run web., zh: 运行 web。}
    question:
      ask: {en: "Phase?", zh: "phase？"}
      fact: podPhase
      pod: web
      choices:
        - {text: {en: Pending, zh: Pending}, value: Pending}
        - {text: {en: Running, zh: Running}, value: Running}
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web, labels: {app: web}}
      spec: {containers: [{name: web, image: nginx:1.27}]}
    expect:
      - podPhase: {pod: web, phase: Running}
  - id: pods
    narration: {en: Count them., zh: 数一数。}
    question:
      ask: {en: "Pods of app=web?", zh: "app=web 的 Pod？"}
      fact: count
      kind: Pod
      selector: app=web
      choices:
        - {text: {en: none, zh: 没有}, value: 0}
        - {text: {en: one, zh: 一个}, value: 1}
  - id: nodes
    narration: {en: Count the nodes., zh: 数一数节点。}
    question:
      ask: {en: "Nodes?", zh: "节点？"}
      fact: count
      kind: Node
      choices:
        - {text: {en: one, zh: 一个}, value: 1}
        - {text: {en: three, zh: 三个}, value: 3}
  - id: gone
    narration: {en: Delete web., zh: 删除 web。}
    question:
      ask: {en: "Phase now?", zh: "现在的 phase？"}
      fact: podPhase
      pod: web
      choices:
        - {text: {en: Succeeded, zh: Succeeded}, value: Succeeded}
        - {text: {en: gone, zh: 不在了}, value: none}
    delete: {kind: Pod, name: web, namespace: default, wait: true}
`

func TestPhaseAndCountFacts(t *testing.T) {
	s, err := scenarios.Parse("facts.yaml", []byte(factsScenario))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	c := mustStartCluster(t, s)
	rec := &resultRecorder{results: map[string]scenarios.StepResult{}}
	if err := play(t, c, s, rec); err != nil {
		t.Fatalf("Play = %v", err)
	}
	for _, tc := range []struct {
		step   string
		answer int
		fact   string
	}{
		{"running", 1, "Running"}, {"pods", 1, "1"}, {"nodes", 0, "1"}, {"gone", 1, "none"},
	} {
		if r := rec.results[tc.step]; r.Answer != tc.answer || r.FactValue != tc.fact {
			t.Errorf("step %s: answer %d, fact %q; want %d, %q", tc.step, r.Answer, r.FactValue, tc.answer, tc.fact)
		}
	}
}

// TestParseNewFactErrors: the fields of podPhase, count, scoreboard,
// slowWatchMissed and restfulRoute are checked as the scenario is read.
func TestParseNewFactErrors(t *testing.T) {
	const phaseChoices = "      choices:\n        - {text: {en: a, zh: 甲}, value: Running}\n        - {text: {en: b, zh: 乙}, value: none}\n"
	src := func(fact string) string {
		return header + "steps:\n" + questionStep + askLine + fact + choices2
	}
	tests := []struct {
		name, src, want string
	}{
		{"podPhase without pod", header + "steps:\n" + questionStep + askLine + "      fact: podPhase\n" + phaseChoices, `question: missing field "pod"`},
		{"podPhase value", header + "steps:\n" + questionStep + askLine + "      fact: podPhase\n      pod: web\n" + choices2, `"200" can never be the fact podPhase (its values: Pending, Running, Succeeded, Failed, Unknown, none)`},
		{"count without kind", src("      fact: count\n"), `question: missing field "kind"`},
		{"count of an unknown kind", src("      fact: count\n      kind: Widget\n"), `question.kind: unknown kind "Widget" (a built-in kind: Pod, Node,`},
		{"count of nodes in a namespace", src("      fact: count\n      kind: Node\n      namespace: default\n"), `question.namespace: Node is not namespaced`},
		{"count with a bad selector", src("      fact: count\n      kind: Pod\n      selector: 'app in ('\n"), `question.selector: `},
		{"scoreboard without client", src("      fact: scoreboard\n      figure: requests\n"), `question: missing field "client" (one of poll, longpoll, watch)`},
		{"scoreboard figure", src("      fact: scoreboard\n      client: watch\n      figure: bytes\n"), `question.figure: `},
		{"restfulRoute router", src("      fact: restfulRoute\n      router: gorilla\n"), `question.router: `},
		{"restfulRoute value", header + "steps:\n" + questionStep + askLine + "      fact: restfulRoute\n      choices:\n        - {text: {en: a, zh: 甲}, value: 404}\n        - {text: {en: b, zh: 乙}, value: FETCH /pods}\n", `"FETCH /pods" can never be the fact restfulRoute`},
		{"slowWatchMissed takes no fields", src("      fact: slowWatchMissed\n      client: watch\n"), `question: unknown field "client" (allowed: ask, choices, fact)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenarios.Parse("testdata/t.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n got %v\nwant it to contain %s", err, tc.want)
			}
		})
	}
}
