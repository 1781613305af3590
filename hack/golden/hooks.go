package main

import (
	"regexp"
	"sort"
	"strings"
)

// hookLine is a post-start hook's line in the startup trace.
var hookLine = regexp.MustCompile(`^ *\+<dur>  Run +poststarthook +(started|finished) +(\S+)$`)

// sortFinishedHooks moves, in each run of hook lines, the "finished"
// lines after the "started" ones, sorted by name; the "started" lines keep
// their order, which is the order the hooks were registered in.
func sortFinishedHooks(s string) string {
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		if !hookLine.MatchString(lines[i]) {
			i++
			continue
		}
		j := i
		var started, finished []string
		for ; j < len(lines) && hookLine.MatchString(lines[j]); j++ {
			if hookLine.FindStringSubmatch(lines[j])[1] == "started" {
				started = append(started, lines[j])
			} else {
				finished = append(finished, lines[j])
			}
		}
		sort.Strings(finished)
		copy(lines[i:j], append(started, finished...))
		i = j
	}
	return strings.Join(lines, "\n")
}
