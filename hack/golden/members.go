package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

var (
	// memberRow is a row of the table kubesim etcd members prints: name,
	// ID, leader mark, raft term, raft index, db size, client URL.
	// An ID is printed in hex without leading zeros.
	memberRow = regexp.MustCompile(`^  (m\d+) +([0-9a-f]{1,16}) +([*?]?) +(\S+) +(\S+) +(\S+) +(\S+)$`)
	// memberNamed is a line naming members: who leads, who was killed,
	// who did not answer.
	memberNamed = regexp.MustCompile(`(?m)^(?:→ .*raft term.*|  m\d+ did not answer: .*)$`)
	memberName  = regexp.MustCompile(`\bm\d+\b`)
)

// etcdMembers blanks in the member tables of a play what raft decides
// at random or what grows with time: which member leads (an election
// with randomized timeouts), so which one a step kills, the members' IDs,
// their raft index and db size. The rows, then alike but for the leader's
// mark, are sorted.
func etcdMembers(s string) string {
	if !strings.Contains(s, "RAFT TERM") {
		return s
	}
	s = memberNamed.ReplaceAllStringFunc(s, func(line string) string {
		return memberName.ReplaceAllString(line, "m<k>")
	})
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for ; j < len(lines); j++ {
			m := memberRow.FindStringSubmatch(lines[j])
			if m == nil {
				break
			}
			index, size := m[5], m[6]
			if index != "?" {
				index, size = "<n>", "<size>"
			}
			lines[j] = fmt.Sprintf("  %-5s %-17s %-7s %-10s %-11s %-8s %s", "m<k>", "<member-id>", m[3], m[4], index, size, m[7])
		}
		sort.Strings(lines[i:j])
		i = max(j, i+1)
	}
	return strings.Join(lines, "\n")
}
