package scenarios

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/internal/flow"
)

// questionWords are the printers' words for questions and answers.
var questionWords = map[string]flow.Text{
	"answer":  {En: "answer: %d. %s (the run's %s: %s)", Zh: "答案：%d. %s（本次运行中，%s：%s）"},
	"unknown": {En: "answer: none of the choices (the run's %s: %s)", Zh: "答案：没有一个选项对（本次运行中，%s：%s）"},
}

// AskedElsewhere tells the printer that the steps' questions are asked,
// and their answers told, somewhere else (play --step asks on stderr):
// it then leaves them out. Call it before the scenario plays.
func (p *PlainPrinter) AskedElsewhere() {
	p.mu.Lock()
	p.askedElsewhere = true
	p.mu.Unlock()
}

// questionShown reports whether the printer shows q.
func (p *PlainPrinter) questionShown(q *Question) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return q != nil && !p.askedElsewhere
}

// writeQuestion writes the step's question and its numbered choices.
func (p *PlainPrinter) writeQuestion(b *strings.Builder, q *Question) {
	if !p.questionShown(q) {
		return
	}
	WriteQuestion(b, q, p.lang, "")
}

// WriteQuestion writes q in lang: "? <ask>" and one line per choice,
// numbered from 1, each line after indent.
func WriteQuestion(b *strings.Builder, q *Question, lang, indent string) {
	fmt.Fprintf(b, "%s? %s\n", indent, q.Ask.In(lang))
	for i, c := range q.Choices {
		fmt.Fprintf(b, "%s    %d. %s\n", indent, i+1, c.Text.In(lang))
	}
}

// writeAnswer writes which choice the run made true, and the fact it
// saw; nothing when the step failed before its fact was known.
func (p *PlainPrinter) writeAnswer(b *strings.Builder, q *Question, r StepResult) {
	if !p.questionShown(q) || (r.Answer < 0 && r.FactValue == "") {
		return
	}
	fmt.Fprintf(b, "%s\n", AnswerLine(q, r, p.lang))
}

// AnswerLine says in lang which choice of q the run r made true and the
// fact it saw: "answer: 2. 201 Created (the run's status code of the
// action's request: 201)". r must be the result of q's step, its fact
// known (r.FactValue set).
func AnswerLine(q *Question, r StepResult, lang string) string {
	if r.Answer < 0 || r.Answer >= len(q.Choices) {
		return fmt.Sprintf(questionWords["unknown"].In(lang), q.About.In(lang), r.FactValue)
	}
	return fmt.Sprintf(questionWords["answer"].In(lang), r.Answer+1, q.Choices[r.Answer].Text.In(lang), q.About.In(lang), r.FactValue)
}

// jsonQuestion is the JSON form of a step's question.
type jsonQuestion struct {
	Ask     flow.Text    `json:"ask"`
	Choices []jsonChoice `json:"choices"`
	Fact    string       `json:"fact"`
	About   flow.Text    `json:"about"`
}

type jsonChoice struct {
	Text  flow.Text `json:"text"`
	Value string    `json:"value"`
}

// jsonAnswer is the JSON form of a question's answer: the index (from 0)
// of the choice the run made true (-1: none), and the fact's value.
type jsonAnswer struct {
	Index int    `json:"index"`
	Fact  string `json:"fact"`
}

func questionJSON(q *Question) *jsonQuestion {
	if q == nil {
		return nil
	}
	j := &jsonQuestion{Ask: q.Ask, Fact: q.Fact, About: q.About}
	for _, c := range q.Choices {
		j.Choices = append(j.Choices, jsonChoice{Text: c.Text, Value: c.Value})
	}
	return j
}

func answerJSON(q *Question, r StepResult) *jsonAnswer {
	if q == nil || (r.Answer < 0 && r.FactValue == "") {
		return nil
	}
	return &jsonAnswer{Index: r.Answer, Fact: r.FactValue}
}
