package main

import (
	"regexp"
	"sort"
	"strings"
)

// writeLine is one write in a controller's list of them.
var writeLine = regexp.MustCompile(`^ +(?:POST|PUT|PATCH|DELETE) [a-z][a-z.]* `)

// sortWrites sorts each run of write lines.
func sortWrites(s string) string { return sortRuns(s, writeLine) }

// sortRuns sorts each run of consecutive lines of s that re matches,
// leaving every other line where it is.
func sortRuns(s string, re *regexp.Regexp) string {
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && re.MatchString(lines[j]) {
			j++
		}
		sort.Strings(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}

// Lines of a controller's retries: a write refused with 409, the sync
// of a key taken again without an informer event, the garbage
// collector's pass over an orphaned object it had already orphaned (0
// dependents left), and a "wrote:" whose writes were all taken out.
var (
	conflictWrite = regexp.MustCompile(`^ +(?:POST|PUT|PATCH|DELETE) [a-z][a-z./]* [^→]*→ 409\b`)
	retrySync     = regexp.MustCompile(`came off the workqueue "[^"]*" with no new informer event|从工作队列 "[^"]*" 中取出，没有新的 informer 事件|removing its ownerReference from 0 dependents|先从 0 个依赖对象上去掉`)
	wroteLine     = regexp.MustCompile(`^ +(?:wrote:|写入：)$`)
)

// dropRetries takes out the lines of controllers' retries.
func dropRetries(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if conflictWrite.MatchString(line) || retrySync.MatchString(line) {
			continue
		}
		if n := len(out); n > 0 && wroteLine.MatchString(out[n-1]) && indent(line) <= indent(out[n-1]) {
			out = out[:n-1] // its writes were all taken out
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
