package main

import (
	"regexp"
	"sort"
	"strings"
)

// otherKeysHead starts the list of writes to other keys between two
// revisions of an object (flow's "between" and "between_one"); its lines
// follow, indented deeper.
var otherKeysHead = regexp.MustCompile(`^( *)(revisions \d+ to \d+ \(\d+\) went to other keys:|revision \d+ went to another key:|revision \d+ 到 \d+（\d+ 个）属于其他键：|revision \d+ 属于另一个键：)$`)

// otherKeys takes out each list of writes to other keys.
func otherKeys(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for i := 0; i < len(lines); i++ {
		m := otherKeysHead.FindStringSubmatch(lines[i])
		if m == nil {
			out = append(out, lines[i])
			continue
		}
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], m[1]+"  ") {
			i++
		}
	}
	return strings.Join(out, "\n")
}

// revisionPatterns find the etcd revisions in a text: each group of
// digits of a match is one.
var revisionPatterns = []*regexp.Regexp{
	// After "resourceVersion" (resourceVersion 4, resourceVersion "121",
	// resourceVersion：120,
	// resourceVersion: "147", "resourceVersion":"1", resourceVersion=12,
	// Resource Version:  189, resourceVersions 111 to 160, resourceVersion
	// 99 → 103), any number is one.
	regexp.MustCompile(`(?i)\bresource ?versions?(?:[=:：]|":)? *(?:是 |从 )?"?(\d+)\b(?:"? (?:to|到|→) "?(\d+)\b)?`),
	// the last resourceVersion the client read: 120
	regexp.MustCompile(`resourceVersion the client read: (\d+)`),
	// After "revision" (revision 121, revisions 122 to 123, previous 109,
	// 上一个 109, 修订版本 121), a number of at least two digits: a
	// Deployment's revisions (1, 2, 3) are called so too, and a fresh
	// cluster has written far more than 9 keys before any scenario step.
	regexp.MustCompile(`(?i)(?:\b(?:revisions?|previous(?: revision)?|create revision|mod revision)|上一个(?: revision)?|修订版本)(?:[=:]|":)? *"?(\d{2,})\b(?: (?:to|到) (\d{2,})\b)?`),
	// too old resource version: 108 (119): the oldest the cache has.
	regexp.MustCompile(`too old resource version: \d+ \((\d+)\)`),
	// the slow watcher's buffer had no room for the change of revision 132
	regexp.MustCompile(`no room for (\d+)\b|(\d+) 放不下了`),
}

// blankRevisions replaces each revision by <rv>.
func blankRevisions(s string) string {
	type span struct{ start, end int }
	var spans []span
	for _, re := range revisionPatterns {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 {
					spans = append(spans, span{m[g], m[g+1]})
				}
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			continue // found by two patterns
		}
		b.WriteString(s[last:sp.start])
		b.WriteString("<rv>")
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}
