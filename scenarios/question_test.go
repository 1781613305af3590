package scenarios_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// questionsScenario asks a question of each kind of fact the runner can
// tell without a watch: a create's 201, a strict create's 409 (a failed
// request that is the question's answer, not a failure), the node the
// only node's pod lands on, a stage's component and a stage's
// resourceVersion.
const questionsScenario = `name: questions
title: {en: Questions, zh: 问题}
summary: {en: One question per fact., zh: 每种事实一个问题。}
cluster: {nodes: 1}
steps:
  - id: create
    narration: {en: Create web., zh: 创建 web。}
    question:
      ask: {en: "Status?", zh: "状态码？"}
      fact: status
      choices:
        - {text: {en: OK, zh: OK}, value: 200}
        - {text: {en: Created, zh: 已创建}, value: 201}
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: web, image: nginx:1.27}]}
    expect:
      - podPhase: {pod: web, phase: Running}
  - id: again
    narration: {en: Create it again., zh: 再创建一次。}
    question:
      ask: {en: "Status now?", zh: "这次的状态码？"}
      fact: status
      choices:
        - {text: {en: Created, zh: 已创建}, value: 201}
        - {text: {en: Conflict, zh: 冲突}, value: 409}
    create: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: web, image: nginx:1.27}]}
  - id: no-question
    narration: {en: Nothing asked., zh: 不提问。}
  - id: where
    narration: {en: "Where is it?", zh: "它在哪儿？"}
    question:
      ask: {en: "Node?", zh: "节点？"}
      fact: node
      pod: web
      choices:
        - {text: {en: none, zh: 没有}, value: none}
        - {text: {en: node-1, zh: node-1}, value: node-1}
  - id: writer
    narration: {en: "Who stored the binding?", zh: "谁存下了绑定？"}
    question:
      ask: {en: "Component?", zh: "组件？"}
      fact: component
      pod: web
      stage: binding-persisted
      choices:
        - {text: {en: scheduler, zh: 调度器}, value: scheduler}
        - {text: {en: apiserver, zh: API Server}, value: apiserver}
  - id: revisions
    narration: {en: "Which revision is newer?", zh: "哪个 revision 更新？"}
    question:
      ask: {en: "Stage 8 against stage 5?", zh: "阶段 8 与阶段 5 相比？"}
      fact: stageRV
      pod: web
      stage: 8
      than: 5
      choices:
        - {text: {en: same, zh: 相同}, value: same}
        - {text: {en: greater, zh: 更大}, value: greater}
`

func TestQuestionsAnswered(t *testing.T) {
	s, err := scenarios.Parse("questions.yaml", []byte(questionsScenario))
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
		{"create", 1, "201"}, {"again", 1, "409"}, {"no-question", -1, ""},
		{"where", 1, "node-1"}, {"writer", 1, "apiserver"}, {"revisions", 1, "greater"},
	} {
		if r := rec.results[tc.step]; r.Answer != tc.answer || r.FactValue != tc.fact {
			t.Errorf("step %s: answer %d, fact %q; want %d, %q", tc.step, r.Answer, r.FactValue, tc.answer, tc.fact)
		}
	}
}

// TestQuestionWithoutTheRunsAnswerFails: a question none of whose
// choices is what the run showed fails its step, naming the question and
// the fact seen, so a lesson cannot teach what its run contradicts.
func TestQuestionWithoutTheRunsAnswerFails(t *testing.T) {
	s, err := scenarios.Parse("wrong.yaml", []byte(`name: wrong
title: {en: Wrong, zh: 错}
summary: {en: A question without the right answer., zh: 一个没有正确答案的问题。}
cluster: {nodes: 1}
steps:
  - id: create
    narration: {en: Create web., zh: 创建 web。}
    question:
      ask: {en: "Where will web run?", zh: "web 会在哪儿运行？"}
      fact: node
      pod: web
      choices:
        - {text: {en: node-2, zh: node-2}, value: node-2}
        - {text: {en: nowhere, zh: 哪儿也不去}, value: none}
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: web, image: nginx:1.27}]}
    expect:
      - podPhase: {pod: web, phase: Running}
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	c := mustStartCluster(t, s)
	rec := &resultRecorder{results: map[string]scenarios.StepResult{}}
	err = play(t, c, s, rec)
	var ee *scenarios.ExpectationError
	if !errors.As(err, &ee) {
		t.Fatalf("Play = %v, want an *ExpectationError", err)
	}
	want := `step 1 (create): expected question "Where will web run?" to have a choice for the run's node of web (choices: node-2, none), saw node-1, which no choice has`
	if err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}
	if r := rec.results["create"]; r.Answer != -1 || r.FactValue != "node-1" {
		t.Errorf("answer %d, fact %q; want -1, node-1", r.Answer, r.FactValue)
	}
}

// TestPrintersShowQuestions: --plain prints the question with numbered
// choices when the step starts and the answer with the run's fact when it
// ends, in the printer's language; --json has the question in the started
// step and the answer in the finished one.
func TestPrintersShowQuestions(t *testing.T) {
	q := &scenarios.Question{
		Ask:  bilingual("Which status code?", "哪个状态码？"),
		Fact: "status", About: bilingual("status code of the action's request", "动作请求的状态码"),
		Choices: []scenarios.Choice{{Text: bilingual("200 OK", "200 OK"), Value: "200"}, {Text: bilingual("201 Created", "201 已创建"), Value: "201"}},
	}
	info := scenarios.StepInfo{Index: 1, Total: 1, ID: "create", Narration: bilingual("N", "旁白"), Question: q}
	res := scenarios.StepResult{Status: 201, Answer: 1, FactValue: "201"}
	for _, tc := range []struct{ lang, start, end string }{
		{"en", "? Which status code?\n    1. 200 OK\n    2. 201 Created\n", "answer: 2. 201 Created (the run's status code of the action's request: 201)\n"},
		{"zh", "? 哪个状态码？\n    1. 200 OK\n    2. 201 已创建\n", "答案：2. 201 已创建（本次运行中，动作请求的状态码：201）\n"},
	} {
		var out bytes.Buffer
		p := scenarios.NewPlainPrinter(&out, tc.lang)
		p.StepStarted(info)
		if !strings.Contains(out.String(), tc.start) {
			t.Errorf("%s: started step\n%s\nlacks\n%s", tc.lang, out.String(), tc.start)
		}
		p.StepFinished(info, res)
		if !strings.Contains(out.String(), tc.end) {
			t.Errorf("%s: finished step\n%s\nlacks %q", tc.lang, out.String(), tc.end)
		}
	}

	var out bytes.Buffer
	p := scenarios.NewPlainPrinter(&out, "en")
	p.AskedElsewhere()
	p.StepStarted(info)
	p.StepFinished(info, res)
	if strings.Contains(out.String(), "?") || strings.Contains(out.String(), "answer") {
		t.Errorf("a printer told the questions are asked elsewhere printed one:\n%s", out.String())
	}

	var js bytes.Buffer
	jp := scenarios.NewJSONPrinter(&js)
	jp.StepStarted(info)
	jp.StepFinished(info, res)
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("JSON: %d lines, want 2:\n%s", len(lines), js.String())
	}
	var started, finished struct {
		Question *struct {
			Ask     struct{ En, Zh string }
			Choices []struct{ Value string }
			Fact    string
		}
		Answer *struct {
			Index int
			Fact  string
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &started); err != nil || started.Question == nil || started.Question.Ask.Zh != "哪个状态码？" ||
		len(started.Question.Choices) != 2 || started.Question.Choices[1].Value != "201" || started.Question.Fact != "status" || started.Answer != nil {
		t.Errorf("JSON started step %s (%v): want the question, no answer", lines[0], err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &finished); err != nil || finished.Answer == nil || finished.Answer.Index != 1 || finished.Answer.Fact != "201" || finished.Question != nil {
		t.Errorf("JSON finished step %s (%v): want answer index 1, fact 201", lines[1], err)
	}
}

func bilingual(en, zh string) flow.Text { return flow.Text{En: en, Zh: zh} }
