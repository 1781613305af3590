package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// quizWords are what play --step says about questions, by key.
var quizWords = map[string]flow.Text{
	"prompt":  {En: "answer with a number from 1 to %d, or press Enter to skip", Zh: "输入 1 到 %d 之间的数字作答，或直接按 Enter 跳过"},
	"again":   {En: "kubesim: %q is not a choice: type a number from 1 to %d, or just Enter to skip", Zh: "kubesim：%q 不是一个选项：请输入 1 到 %d 之间的数字，或直接按 Enter 跳过"},
	"right":   {En: "✓ right: %s", Zh: "✓ 答对了：%s"},
	"wrong":   {En: "✗ wrong (you chose %d): %s", Zh: "✗ 答错了（你选了 %d）：%s"},
	"skipped": {En: "· skipped: %s", Zh: "· 已跳过：%s"},
	"unknown": {En: "· the run could not tell the answer: the step failed", Zh: "· 这次运行没能给出答案：这一步失败了"},
	"score":   {En: "questions: %d of %d right, %d skipped", Zh: "问题：答了 %[2]d 题，答对 %[1]d 题，跳过 %[3]d 题"},
}

// quiz asks a scenario's questions at the step gates of play --step, on
// the terminal where the gate's prompts go, says once each step has run
// whether the answer was right and what the run showed, and keeps the
// score. It is the play's Observer: it hands every call on to the
// printer's. Safe for concurrent use.
type quiz struct {
	inner scenarios.Observer
	w     io.Writer
	lang  string

	mu       sync.Mutex
	question *scenarios.Question // of the step started last (nil: none)
	step     int                 // that step's index
	chosen   map[int]int         // the learner's choice by step (from 0; -1 skipped)
	right    int
	wrong    int
	skipped  int
}

func newQuiz(inner scenarios.Observer, w io.Writer, lang string) *quiz {
	return &quiz{inner: inner, w: w, lang: lang, chosen: map[int]int{}}
}

var (
	_ scenarios.Observer      = (*quiz)(nil)
	_ scenarios.EventObserver = (*quiz)(nil)
)

func (q *quiz) word(key string) string { return quizWords[key].In(q.lang) }

// StepStarted notes the step's question: the step waits at its gate next.
func (q *quiz) StepStarted(s scenarios.StepInfo) {
	q.inner.StepStarted(s)
	q.mu.Lock()
	q.question, q.step = s.Question, s.Index
	q.mu.Unlock()
}

// StepFinished says whether the learner's answer was right, once the run
// has shown what is.
func (q *quiz) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	q.inner.StepFinished(s, r)
	q.mu.Lock()
	defer q.mu.Unlock()
	chosen, asked := q.chosen[s.Index]
	if s.Question == nil || !asked {
		return
	}
	var line string
	switch {
	case r.Answer < 0:
		line = q.word("unknown")
	case chosen < 0:
		q.skipped++
		line = fmt.Sprintf(q.word("skipped"), scenarios.AnswerLine(s.Question, r, q.lang))
	case chosen == r.Answer:
		q.right++
		line = fmt.Sprintf(q.word("right"), scenarios.AnswerLine(s.Question, r, q.lang))
	default:
		q.wrong++
		line = fmt.Sprintf(q.word("wrong"), chosen+1, scenarios.AnswerLine(s.Question, r, q.lang))
	}
	fmt.Fprintln(q.w, line)
}

// Event hands ev on to the printer.
func (q *quiz) Event(ev flow.Event) {
	if eo, ok := q.inner.(scenarios.EventObserver); ok {
		eo.Event(ev)
	}
}

// pending returns the question of the step waiting at its gate, if it
// has one not yet asked.
func (q *quiz) pending() (*scenarios.Question, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, asked := q.chosen[q.step]; asked || q.question == nil {
		return nil, 0
	}
	return q.question, q.step
}

// ask asks question (of step) and reads the answer from lines: a number
// from 1 to the number of choices answers, an empty line skips, anything
// else is asked again. It reports false when lines closed first (the
// question then counts as skipped).
func (q *quiz) ask(question *scenarios.Question, step int, lines <-chan string) bool {
	var b strings.Builder
	scenarios.WriteQuestion(&b, question, q.lang, "")
	fmt.Fprintf(&b, "   "+q.word("prompt")+"\n", len(question.Choices))
	_, _ = io.WriteString(q.w, b.String())
	for {
		line, ok := <-lines
		line = strings.TrimSpace(line)
		choice := -1
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(question.Choices) {
			choice = n - 1
		} else if ok && line != "" {
			fmt.Fprintf(q.w, q.word("again")+"\n", line, len(question.Choices))
			continue
		}
		q.mu.Lock()
		q.chosen[step] = choice
		q.mu.Unlock()
		return ok
	}
}

// score is the score line ("questions: 2 of 3 right, 1 skipped": right
// of those answered), "" when no question was asked.
func (q *quiz) score() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.right+q.wrong+q.skipped == 0 {
		return ""
	}
	return fmt.Sprintf(q.word("score"), q.right, q.right+q.wrong, q.skipped)
}
