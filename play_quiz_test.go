package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quizScenario asks three questions about requests that touch no pod,
// so that the only holds of play --step are the steps' own.
const quizScenario = `name: quiz
title: {en: Quiz, zh: 测验}
summary: {en: Three status codes., zh: 三个状态码。}
cluster: {nodes: 0, scheduler: false}
steps:
  - id: there
    narration: {en: Read the namespace default., zh: 读取命名空间 default。}
    question:
      ask: {en: "Which status for default?", zh: "default 的状态码？"}
      fact: status
      choices:
        - {text: {en: 200 OK, zh: 200 OK}, value: 200}
        - {text: {en: 404 Not Found, zh: 404 Not Found}, value: 404}
    http: {path: /api/v1/namespaces/default}
  - id: missing
    narration: {en: Read a namespace that is not there., zh: 读取一个不存在的命名空间。}
    question:
      ask: {en: "Which status for nope?", zh: "nope 的状态码？"}
      fact: status
      choices:
        - {text: {en: 200 OK, zh: 200 OK}, value: 200}
        - {text: {en: 404 Not Found, zh: 404 Not Found}, value: 404}
    http: {path: /api/v1/namespaces/nope}
  - id: skipped
    narration: {en: Once more., zh: 再来一次。}
    question:
      ask: {en: "And now?", zh: "这次呢？"}
      fact: status
      choices:
        - {text: {en: 200 OK, zh: 200 OK}, value: 200}
        - {text: {en: 404 Not Found, zh: 404 Not Found}, value: 404}
    http: {path: /api/v1/namespaces/default}
`

// TestPlayStepAsksQuestions: with --step each question is asked on
// stderr at its step's gate; a line that is not a choice is asked again,
// a number answers, an empty line skips; once the step has run, play says
// whether the answer was right and what the run showed, and at the end
// the score, in the chosen language.
func TestPlayStepAsksQuestions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "quiz.yaml")
	if err := os.WriteFile(file, []byte(quizScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	// Step 1: "x" is asked again, 1 is right; step 2: 1 is wrong; step 3
	// is skipped.
	const input = "x\n1\n1\n\n"
	tests := []struct {
		lang string
		want []string
	}{
		{"en", []string{
			"⏸  next: step 1/3 there — a question first\n? Which status for default?\n    1. 200 OK\n    2. 404 Not Found\n   answer with a number from 1 to 2, or press Enter to skip\n",
			`kubesim: "x" is not a choice: type a number from 1 to 2, or just Enter to skip`,
			"✓ right: answer: 1. 200 OK (the run's status code of the action's request: 200)\n",
			"✗ wrong (you chose 1): answer: 2. 404 Not Found (the run's status code of the action's request: 404)\n",
			"· skipped: answer: 1. 200 OK (the run's status code of the action's request: 200)\n",
			"questions: 1 of 2 right, 1 skipped\n",
		}},
		{"zh", []string{
			"? default 的状态码？\n",
			"✓ 答对了：答案：1. 200 OK（本次运行中，动作请求的状态码：200）\n",
			"✗ 答错了（你选了 1）：答案：2. 404 Not Found（本次运行中，动作请求的状态码：404）\n",
			"问题：答了 2 题，答对 1 题，跳过 1 题\n",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			code, out, errs := runMain(t, input, "play", file, "--plain", "--step", "--lang", tc.lang, "--speed", "0", "--data-dir", filepath.Join(dir, tc.lang))
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s\nstdout:\n%s", code, errs, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
			}
			if strings.Contains(errs, "input closed") {
				t.Errorf("the input ran out:\n%s", errs)
			}
		})
	}
}
