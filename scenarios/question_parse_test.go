package scenarios_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// questionStep is a valid step (line 5) whose question (from line 6)
// follows, indented as a step's field.
const questionStep = "  - narration: {en: N, zh: 旁白}\n    question:\n"

// choices2 are two valid choices of a status question (lines 9-11 when
// they follow questionStep, ask and fact).
const choices2 = "      choices:\n        - {text: {en: a, zh: 甲}, value: 200}\n        - {text: {en: b, zh: 乙}, value: 201}\n"

// askLine and factStatus are a question's ask (line 6) and fact (7).
const (
	askLine    = "      ask: {en: \"Which?\", zh: \"哪个？\"}\n"
	factStatus = "      fact: status\n"
)

func TestParseQuestionErrors(t *testing.T) {
	src := func(body string) string { return header + "steps:\n" + questionStep + body }
	facts := strings.Join(scenarios.FactKeys(), ", ")
	choice := func(value string) string {
		return "        - {text: {en: c, zh: 丙}, value: " + value + "}\n"
	}
	tests := []struct {
		name, src, want string
	}{
		{"not a mapping", header + "steps:\n  - narration: {en: N, zh: 旁白}\n    question: which?\n", `6:15: question: expected a mapping, got a string ("which?")`},
		{"missing fact", src(askLine + choices2), `7:7: question: missing field "fact" (one of ` + facts + `)`},
		{"unknown fact", src(askLine + "      fact: winner\n" + choices2), `8:13: question.fact: unknown fact "winner" (known: ` + facts + `)`},
		{"field of another fact", src(askLine + factStatus + "      pod: web\n" + choices2), `9:7: question: unknown field "pod" (allowed: ask, choices, fact)`},
		{"missing ask", src(factStatus + choices2), `7:7: question: missing field "ask"`},
		{"ask missing zh", src("      ask: {en: \"Which?\"}\n" + factStatus + choices2), `7:12: question.ask: missing zh`},
		{"missing choices", src(askLine + factStatus), `7:7: question: missing field "choices"`},
		{"choices not a list", src(askLine + factStatus + "      choices: {a: 1}\n"), `9:16: question.choices: expected a list, got a mapping`},
		{"one choice", src(askLine + factStatus + "      choices:\n" + choice("201")), `10:9: question.choices: 1 choices: a question has 2 to 5`},
		{"six choices", src(askLine + factStatus + "      choices:\n" + choice("200") + choice("201") + choice("202") + choice("204") + choice("409") + choice("500")), `10:9: question.choices: 6 choices: a question has 2 to 5`},
		{"duplicate value", src(askLine + factStatus + "      choices:\n" + choice("201") + choice("201")), `11:41: question.choices[1].value: "201" is the value of choices[0] too (each choice needs its own)`},
		{"choice missing value", src(askLine + factStatus + "      choices:\n" + choice("201") + "        - {text: {en: c, zh: 丙}}\n"), `11:11: question.choices[1]: missing field "value"`},
		{"choice missing language", src(askLine + factStatus + "      choices:\n" + choice("201") + "        - {text: {en: c}, value: 409}\n"), `11:18: question.choices[1].text: missing zh`},
		{"choice unknown field", src(askLine + factStatus + "      choices:\n" + choice("201") + "        - {text: {en: c, zh: 丙}, value: 409, right: true}\n"), `11:46: question.choices[1]: unknown field "right" (allowed: text, value)`},
		{"value the fact never has", src(askLine + factStatus + "      choices:\n" + choice("201") + choice("Created")), `11:41: question.choices[1].value: "Created" can never be the fact status (its values: an HTTP status code (201, 409))`},
		{"comparison value", src(askLine + "      fact: watchRV\n" + "      choices:\n" + choice("same") + choice("bigger")), `11:41: question.choices[1].value: "bigger" can never be the fact watchRV (its values: less, same, greater)`},
		{"node fact without pod", src(askLine + "      fact: node\n" + "      choices:\n" + choice("node-1") + choice("none")), `7:7: question: missing field "pod"`},
		{"component bad stage", src(askLine + "      fact: component\n      pod: web\n      stage: 9\n" + "      choices:\n" + choice("apiserver") + choice("kubelet")), `10:14: question.stage: 9 is not a stage (1 to 8, or one of admitted, persisted, scheduler-notified, scheduled, binding-persisted, kubelet-notified, status-reported, status-persisted)`},
		{"component of stage 6", src(askLine + "      fact: component\n      pod: web\n      stage: kubelet-notified\n" + "      choices:\n" + choice("apiserver") + choice("kubelet")), `10:14: question.stage: stage 6 (kubelet-notified) is recorded by two components, the API server (its watch frame to the kubelet) and the kubelet (its runtime actions): ask about another stage`},
		{"component unknown value", src(askLine + "      fact: component\n      pod: web\n      stage: 5\n" + "      choices:\n" + choice("apiserver") + choice("etcd")), `13:41: question.choices[1].value: "etcd" can never be the fact component (its values: apiserver, scheduler, kubelet)`},
		{"stageRV stage without one", src(askLine + "      fact: stageRV\n      pod: web\n      stage: scheduled\n      than: 2\n" + "      choices:\n" + choice("same") + choice("greater")), `10:14: question.stage: stage 4 (scheduled) carries no resourceVersion (stages 2, 3, 5, 6 and 8 do)`},
		{"stageRV same stages", src(askLine + "      fact: stageRV\n      pod: web\n      stage: 2\n      than: persisted\n" + "      choices:\n" + choice("same") + choice("greater")), `11:13: question.than: the same stage as stage`},
		{"replicas without deployment", src(askLine + "      fact: replicas\n" + "      choices:\n" + choice("4") + choice("5")), `7:7: question: missing field "deployment"`},
		{"replicas not a number", src(askLine + "      fact: replicas\n      deployment: web\n" + "      choices:\n" + choice("5") + choice("five")), `12:41: question.choices[1].value: "five" can never be the fact replicas (its values: a number of replicas (0, 5))`},
		{"job fact without figure", src(askLine + "      fact: job\n      job: pi\n" + "      choices:\n" + choice("1") + choice("2")), `7:7: question: missing field "figure" (one of succeeded, failed, active, maxActive)`},
		{"job fact bad figure", src(askLine + "      fact: job\n      job: pi\n      figure: pods\n" + "      choices:\n" + choice("1") + choice("2")), `10:15: question.figure: "pods" is not one of succeeded, failed, active, maxActive`},
		{"job fact not a count", src(askLine + "      fact: job\n      job: pi\n      figure: failed\n" + "      choices:\n" + choice("1") + choice("-1")), `13:41: question.choices[1].value: "-1" can never be the fact job (its values: a count (0, 1, 2...))`},
		{"watchEvent bad index", src(askLine + "      fact: watchEvent\n      index: 0\n" + "      choices:\n" + choice("ADDED") + choice("none")), `9:14: question.index: 0: watch events count from 1 (to 1000)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse("testdata/t.yaml", []byte(tt.src))
			var fe *scenarios.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, want a *FileError", err)
			}
			if got, want := err.Error(), "testdata/t.yaml:"+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestParseQuestion(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(header+"steps:\n"+questionStep+askLine+
		"      fact: node\n      pod: web\n      choices:\n"+
		"        - {text: {en: node-1, zh: node-1}, value: node-1}\n"+
		"        - text: {en: nowhere, zh: 无处可去}\n          value: none\n"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	q := s.Steps[0].Question
	if q == nil || q.Fact != "node" || q.Ask.Zh != "哪个？" || len(q.Choices) != 2 || q.Choices[1].Value != "none" || q.Choices[1].Text.Zh != "无处可去" {
		t.Fatalf("question = %+v", q)
	}
	if q.About.En != "node of web" || q.About.Zh != "web 所在的节点" {
		t.Errorf("about = %+v", q.About)
	}
}
