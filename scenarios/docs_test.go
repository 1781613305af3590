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

// TestDocsListEveryKind: the tables of actions and expectations in
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
	} {
		if got := docsTableKeys(t, tc.heading); !slices.Equal(got, tc.want) {
			t.Errorf("docs/scenarios.md %s lists\n  %s\nthe registry has\n  %s", tc.heading, strings.Join(got, ", "), strings.Join(tc.want, ", "))
		}
	}
}
