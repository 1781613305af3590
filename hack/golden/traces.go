package main

import (
	"regexp"
	"sort"
	"strings"
)

// tracesHead starts the list of a step's requests as the API server
// traced them; each request is a line indented by 4 spaces with its
// trace under it, indented deeper.
var tracesHead = regexp.MustCompile(`^  (?:the API server's trace of this step's requests:|API Server 对本步骤请求的追踪：)$`)

// setOfTraces writes the requests of each step's list once each, sorted:
// an action that waits for something (a rollout, a poll) asks as many
// times as it takes, and several clients' requests interleave.
func setOfTraces(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if !tracesHead.MatchString(lines[i]) {
			continue
		}
		seen := map[string]bool{}
		var requests []string
		j := i + 1
		for j < len(lines) && indent(lines[j]) >= 4 {
			k := j + 1
			for k < len(lines) && indent(lines[k]) > 4 {
				k++
			}
			r := strings.Join(lines[j:k], "\n")
			if !seen[r] {
				seen[r] = true
				requests = append(requests, r)
			}
			j = k
		}
		sort.Strings(requests)
		out = append(out, requests...)
		i = j - 1
	}
	return strings.Join(out, "\n")
}
