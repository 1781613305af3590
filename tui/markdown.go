package tui

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kubesim/kubesim/internal/flow"
)

// markdownWidth is the width evidence is wrapped to in the export.
const markdownWidth = 100

func writeMarkdownFile(path string, m *Model) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("markdown export: %w", err)
	}
	bw := bufio.NewWriter(f)
	werr := writeMarkdown(bw, m.played, m.etcdHistory, m.shared.lang)
	if werr == nil {
		werr = bw.Flush()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("markdown export %s: %w", path, werr)
	}
	return nil
}

// markdownWords are the export's own words, in both languages.
var markdownWords = map[string]flow.Text{
	"walkthrough": {En: "kubesim walkthrough", Zh: "kubesim 演练记录"},
	"steps":       {En: "Steps", Zh: "步骤"},
	"unfinished":  {En: "Result: not finished.", Zh: "结果：未完成。"},
	"failed":      {En: "Result: **failed**: %s", Zh: "结果：**失败**：%s"},
	"held":        {En: "Result: every expectation held.", Zh: "结果：所有预期都成立。"},
	"pod":         {En: "Pod %s/%s (uid %s)", Zh: "Pod %s/%s（uid %s）"},
	"gate":        {En: " (+%s held by the gate)", Zh: "（另有 %s 被关卡暂停）"},
	"transcript":  {En: "What the action saw:", Zh: "动作所见："},
	"question":    {En: "**Question:** %s", Zh: "**问题：**%s"},
}

// md returns the export's word for key in lang.
func md(key, lang string) string { return markdownWords[key].In(lang) }

// writeMarkdown writes the walkthrough of the sessions played: each
// scenario's steps and, for each pod followed, every stage with the
// evidence captured (the same text as the evidence pane).
func writeMarkdown(w io.Writer, played []*walkthrough, etcdHistory map[historyKey]historyEntry, lang string) error {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	v := evidenceView{st: newStyles(r), lang: lang, width: markdownWidth, etcdHistory: etcdHistory}
	var b strings.Builder
	b.WriteString("# " + md("walkthrough", lang) + "\n")
	for _, wt := range played {
		if len(wt.steps) == 0 && len(wt.tracks.order) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s (`%s`)\n\n%s\n", wt.info.Title.In(lang), wt.info.Name, wt.info.Summary.In(lang))
		if len(wt.steps) > 0 {
			b.WriteString("\n### " + md("steps", lang) + "\n\n")
			for _, s := range wt.steps {
				writeMarkdownStep(&b, s, wt.answers, lang)
			}
			if line := scoreLine(lang, wt.score()); line != "" {
				b.WriteString("\n" + line + "\n")
			}
		}
		switch {
		case !wt.done:
			b.WriteString("\n" + md("unfinished", lang) + "\n")
		case wt.err != nil:
			fmt.Fprintf(&b, "\n"+md("failed", lang)+"\n", wt.err)
		default:
			b.WriteString("\n" + md("held", lang) + "\n")
		}
		for _, t := range wt.tracks.list() {
			if t.reached() == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n### "+md("pod", lang)+"\n", t.ref.Namespace, t.ref.Name, t.ref.UID)
			for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
				if len(t.stages[s]) == 0 {
					continue
				}
				info, _ := s.Info()
				took := ""
				if d, ok := t.took(s); ok {
					took = " — " + flow.FormatDuration(d)
					if h := t.heldFor(s, time.Time{}); h > 0 {
						took += fmt.Sprintf(md("gate", lang), flow.FormatDuration(h))
					}
				}
				fmt.Fprintf(&b, "\n#### %d/8 %s%s\n", int(s), info.Title.In(lang), took)
				for tb := tab(0); tb < numTabs; tb++ {
					if !stageHas(t, s, tb) {
						continue
					}
					body, _ := v.render(t, s, tb)
					fmt.Fprintf(&b, "\n%s:\n\n```text\n%s\n```\n", tabNames[tb].In(lang), strings.Join(trimRight(body), "\n"))
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdownStep writes step s of the walkthrough as an item of the
// steps' list: its narration, action and result, its question (the
// choices, and how the learner's answer in answers compares with the
// run's) and its transcript as a code block.
func writeMarkdownStep(b *strings.Builder, s StepUpdate, answers map[int]learnerAnswer, lang string) {
	fmt.Fprintf(b, "%d. %s\n", s.Index, s.Narration.In(lang))
	if line := markdownStepResult(s); line != "" {
		fmt.Fprintf(b, "   %s\n", line)
	}
	if q := s.Question; q != nil {
		fmt.Fprintf(b, "\n   "+md("question", lang)+"\n\n", q.Ask.In(lang))
		for i, c := range q.Choices {
			fmt.Fprintf(b, "   %d. %s\n", i+1, c.In(lang))
		}
		var a *learnerAnswer
		if got, ok := answers[s.Index]; ok {
			a = &got
		}
		fmt.Fprintf(b, "\n   → %s\n", verdict(lang, s, a))
	}
	if len(s.Transcript) == 0 {
		return
	}
	lines := make([]string, len(s.Transcript))
	for i, t := range s.Transcript {
		lines[i] = strings.TrimRight(t.In(lang), " ")
	}
	fence := codeFence(lines)
	fmt.Fprintf(b, "\n   %s\n\n   %stext\n", md("transcript", lang), fence)
	for _, l := range lines {
		b.WriteString(strings.TrimRight("   "+l, " ") + "\n")
	}
	b.WriteString("   " + fence + "\n")
}

// codeFence is a fence of backticks longer than any run of them in
// lines (three at least), so that no line can end the block.
func codeFence(lines []string) string {
	n := 3
	for _, l := range lines {
		run := 0
		for _, r := range l {
			if r != '`' {
				run = 0
				continue
			}
			if run++; run >= n {
				n = run + 1
			}
		}
	}
	return strings.Repeat("`", n)
}

func stageHas(t *podTrack, s flow.Stage, tb tab) bool {
	for _, e := range t.stages[s] {
		if tb.has(e) {
			return true
		}
	}
	return false
}

func trimRight(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// markdownResultMax bounds the result quoted for a step (an http step's
// result is a whole response body).
const markdownResultMax = 160

// shortResult is a step's result on one line (its spaces and line
// breaks collapsed), cut after markdownResultMax characters.
func shortResult(result string) string {
	r := strings.Join(strings.Fields(result), " ")
	if rs := []rune(r); len(rs) > markdownResultMax {
		r = string(rs[:markdownResultMax]) + "…"
	}
	return r
}

// markdownStepResult is the line under a step of the walkthrough: its
// action and what came of it; "" for a step without either.
func markdownStepResult(s StepUpdate) string {
	var parts []string
	if s.Action != "" {
		parts = append(parts, "`"+s.Action+"`")
	}
	if r := shortResult(s.Result); r != "" {
		parts = append(parts, "→ "+r)
	}
	if s.Err != nil {
		parts = append(parts, fmt.Sprintf("**failed: %s**", s.Err))
	}
	return strings.Join(parts, " ")
}
