package main

import (
	"regexp"
	"sort"
	"strings"
)

var (
	// frameish are the lines of an HTTP/2 transcript: a frame sent (">")
	// or received ("<") with its continuation lines, and the events the
	// client decoded from a DATA frame.
	frameish = regexp.MustCompile(`^  [<>] |^    stream \d+`)
	// serverFrame starts a frame the server sent.
	serverFrame = regexp.MustCompile(`^  < length=\S+ type=\S+ flags=\S+ stream=(\d+)`)
)

// frameUnit is a frame the server sent, with what followed it before the
// server's next frame: its continuation lines, the client's answers, the
// events decoded.
type frameUnit struct {
	stream string
	lines  []string
}

// sortFrames sorts the server's frames of each run of transcript lines:
// by stream, the connection's own (stream 0) by text, each other
// stream's in the order they came. What comes before the server's first
// frame (the client's preface and requests) stays first.
func sortFrames(s string) string {
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && frameish.MatchString(lines[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		sortRun(lines[i:j])
		i = j
	}
	return strings.Join(lines, "\n")
}

// sortRun sorts the server frames of one run in place.
func sortRun(run []string) {
	var units []frameUnit
	start := len(run)
	for k, line := range run {
		if m := serverFrame.FindStringSubmatch(line); m != nil {
			if len(units) == 0 {
				start = k
			}
			units = append(units, frameUnit{stream: m[1]})
		}
		if len(units) > 0 {
			u := &units[len(units)-1]
			u.lines = append(u.lines, line)
		}
	}
	sort.SliceStable(units, func(a, b int) bool {
		ua, ub := units[a], units[b]
		if ua.stream != ub.stream {
			return len(ua.stream) < len(ub.stream) || (len(ua.stream) == len(ub.stream) && ua.stream < ub.stream)
		}
		return ua.stream == "0" && strings.Join(ua.lines, "\n") < strings.Join(ub.lines, "\n")
	})
	k := start
	for _, u := range units {
		k += copy(run[k:], u.lines)
	}
}
