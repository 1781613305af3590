package main

import "strings"

// mapKubectlStdout applies f to the stdout of each kubectl capture in
// text (see capture.render) whose command line (without "$ ") match
// accepts; the rest of
// text is left as it is. Only kubectl's captures are cut this way: their
// output has no line starting with "$ " or "--- ", which scenario
// transcripts have.
func mapKubectlStdout(text string, match func(cmdline string) bool, f func(string) string) string {
	if !strings.HasPrefix(text, "$ kubectl ") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	matched, inStdout := false, false
	var body strings.Builder
	flush := func() {
		if body.Len() > 0 {
			b.WriteString(f(body.String()))
			body.Reset()
		}
	}
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "$ kubectl "):
			flush()
			matched, inStdout = match(strings.TrimSpace(line[2:])), false
		case line == "--- stdout\n" || line == "--- stderr\n":
			flush()
			inStdout = line == "--- stdout\n"
		case matched && inStdout:
			body.WriteString(line)
			continue
		}
		b.WriteString(line)
	}
	flush()
	return b.String()
}
