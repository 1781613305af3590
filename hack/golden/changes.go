package main

import (
	"regexp"
	"strings"
)

// moreChanges ends a list of changes cut short.
var moreChanges = regexp.MustCompile(`^ *(?:… and \d+ more|… 另有 \d+ 处)$`)

// changesHead starts a list of changes ("changed since revision 5:").
var changesHead = regexp.MustCompile(`^( *)(?:changed since revision \S+:|相对 revision \S+ 的变化：)$`)

// keptChanges is how many changes a list keeps.
const keptChanges = 10

// trimChanges keeps the first keptChanges changes of each list of
// changes, and says "… (more)" where it cut one.
func trimChanges(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		m := changesHead.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		j, n := i+1, 0
		for ; j < len(lines) && strings.HasPrefix(lines[j], m[1]+"  "); j++ {
			if moreChanges.MatchString(lines[j]) {
				n = keptChanges + 1 // cut by the printer
				continue
			}
			if n++; n <= keptChanges {
				out = append(out, lines[j])
			}
		}
		if n > keptChanges {
			out = append(out, m[1]+"  … (more)")
		}
		i = j - 1
	}
	return strings.Join(out, "\n")
}
