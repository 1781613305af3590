package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
)

// The spec reports ginkgo -v writes as each spec ends: a header line
// ("• [0.2 seconds]", "• [FAILED] [304.1 seconds]", "S [SKIPPED] ..."),
// the spec's name followed by its labels ("... [Conformance] [sig-node,
// Conformance]"), and, for a failure, "  [FAILED] <message>" after its
// timeline.
var (
	specHeader  = regexp.MustCompile(`^(?:•|S) (?:\[([A-Z]+)\] )?\[[0-9.]+ seconds\]$`)
	labelList   = regexp.MustCompile(` \[[^\[\]]*, [^\[\]]*\]$`)
	failureLine = regexp.MustCompile(`^  \[(?:FAILED|TIMEDOUT|PANICKED|INTERRUPTED|ABORTED)\] (.*)$`)
)

// readLog reads the results from ginkgo.log, for a run whose aggregated
// report is missing: when a parallel process disappears, the suite writes
// none, but the reports of the specs that ended were printed as they
// ended. The specs the lost process was running are not in it.
func readLog(path string) (map[string]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]result{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var name string
	var cur *result
	var message []string // the failure's lines, while they are read
	for sc.Scan() {
		line := sc.Text()
		switch m := specHeader.FindStringSubmatch(line); {
		case m != nil:
			cur, message = &result{State: logState(m[1])}, nil
			if !sc.Scan() {
				return out, sc.Err()
			}
			// Without -v, a failed spec's name has " [It]" in it.
			name = strings.Replace(labelList.ReplaceAllString(sc.Text(), ""), " [It] ", " ", 1)
			out[name] = *cur
		case message != nil:
			// The message goes on, indented, up to "  In [It] at: ...".
			if strings.HasPrefix(line, "  In [") || strings.TrimSpace(line) == "" {
				cur.Failure, message = firstLine(strings.Join(message, "\n")), nil
				out[name] = *cur
			} else {
				message = append(message, line)
			}
		case cur != nil && cur.Failure == "" && cur.State != "passed":
			if f := failureLine.FindStringSubmatch(line); f != nil && !strings.HasPrefix(f[1], "in [") {
				message = []string{f[1]}
				cur.Failure = firstLine(f[1])
				out[name] = *cur
			}
		}
	}
	return out, sc.Err()
}

// logState is a spec header's state word as the JSON report spells it.
func logState(word string) string {
	if word == "" {
		return "passed"
	}
	return strings.ToLower(word)
}
