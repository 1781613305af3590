package scenarios

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docsTableKeys returns the keys the table under heading in
// docs/scenarios.md lists, in order: the code spans of each row's first
// cell, each up to its first ':' ("`podStage: {pod, ...}`" is podStage).
func docsTableKeys(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatalf("read docs: %v", err)
	}
	_, section, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/scenarios.md has no %q", heading)
	}
	if next := strings.Index(section, "\n#"); next >= 0 {
		section = section[:next]
	}
	span := regexp.MustCompile("`([^`]+)`")
	var keys []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range span.FindAllStringSubmatch(cells[1], -1) {
			key, _, _ := strings.Cut(m[1], ":")
			keys = append(keys, key)
		}
	}
	return keys
}

// TestDocsListEveryKind: the tables of actions, expectations and facts in
// docs/scenarios.md list exactly the registered kinds, in registry order,
// so that a kind cannot be added without its documentation (or the docs
// describe one that is gone).
func TestDocsListEveryKind(t *testing.T) {
	for _, tc := range []struct {
		heading string
		want    []string
	}{
		{"### Actions", actionKeys()},
		{"### Expectations", expectKeys()},
		{"#### Facts", factKeys()},
	} {
		if got := docsTableKeys(t, tc.heading); !slices.Equal(got, tc.want) {
			t.Errorf("docs/scenarios.md %s lists\n  %s\nthe registry has\n  %s", tc.heading, strings.Join(got, ", "), strings.Join(tc.want, ", "))
		}
	}
}

// TestDocsQuestionExample: the question docs/scenarios.md shows is one
// the loader reads.
func TestDocsQuestionExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatalf("read docs: %v", err)
	}
	_, section, _ := strings.Cut(string(data), "\n### Questions\n")
	_, block, ok := strings.Cut(section, "```yaml\n")
	block, _, closed := strings.Cut(block, "```")
	if !ok || !closed {
		t.Fatalf("docs/scenarios.md has no yaml block under ### Questions")
	}
	src := "name: t\ntitle: {en: T, zh: 标题}\nsummary: {en: S, zh: 摘要}\nsteps:\n  - narration: {en: N, zh: 旁白}\n"
	for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		src += "    " + line + "\n"
	}
	s, err := Parse("docs.yaml", []byte(src))
	if err != nil {
		t.Fatalf("the docs' question does not load: %v\n%s", err, src)
	}
	if q := s.Steps[0].Question; q == nil || q.Fact != "node" || len(q.Choices) != 2 {
		t.Errorf("question = %+v", q)
	}
}
