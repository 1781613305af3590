package main

import (
	"regexp"
	"sort"
	"strings"
)

// The plain output of a scenario interleaves two things: the steps (each
// one's narration, action, question, then its result) in their fixed
// order, and the pods' stage blocks, printed as the cluster makes them.
// At speed 0 the cluster races the steps, so where a block falls among
// the steps, and how the blocks of several pods interleave, differ from
// run to run. podStories keeps the steps where they are and moves every
// pod's blocks, in the order printed, to the end of the output, one pod
// after the other.

// chunkKind says what printed a chunk of the plain output.
type chunkKind int

const (
	preamble   chunkKind = iota // what play prints before the first step
	stepStart                   // a step's heading, narration, action, question
	stepFinish                  // a step's transcript, requests, result, answer, ✓ or ✗
	podBlock                    // a pod's stage block or aside
	ended                       // after a step's ✓ or ✗, until the next chunk
)

// chunk is a run of lines printed together.
type chunk struct {
	kind  chunkKind
	pod   string // for podBlock
	lines []string
}

var (
	stepHeading = regexp.MustCompile(`^=== `)
	// stageHeading is "[3/8] Scheduler notified by watch — pod nginx",
	// "[before 1/8] Who created it — pod ...", in both languages.
	stageHeading = regexp.MustCompile(`^\[(?:\d+/\d+|before 1/8|1/8 之前)\] .* — (?:pod|Pod) (\S+)$`)
	finishLine   = regexp.MustCompile(`^(?:→|answer:|答案：|✓|✗)`)
	stepEnd      = regexp.MustCompile(`^(?:✓|✗)`)
	asideLine    = regexp.MustCompile(`^  · `)
	// podKey finds the pod an aside is about in the etcd key it names.
	podKey = regexp.MustCompile(`/registry/pods/[^/\s]+/([^,\s]+)`)
)

// splitChunks cuts the lines of a plain output into chunks.
func splitChunks(lines []string) []chunk {
	chunks := []chunk{{kind: preamble}}
	cur := &chunks[0]
	start := func(kind chunkKind, pod string) {
		chunks = append(chunks, chunk{kind: kind, pod: pod})
		cur = &chunks[len(chunks)-1]
	}
	lastPod := ""
	for _, line := range lines {
		switch {
		case line == "":
			continue
		case stepHeading.MatchString(line):
			start(stepStart, "")
		case stageHeading.MatchString(line):
			lastPod = podName(stageHeading.FindStringSubmatch(line)[1])
			start(podBlock, lastPod)
		case asideLine.MatchString(line):
			if m := podKey.FindStringSubmatch(line); m != nil {
				lastPod = m[1]
			}
			start(podBlock, lastPod)
		case strings.HasPrefix(line, "    ") && cur.kind != ended:
			// Continues the chunk: a block's evidence, a question's
			// choices, a request of the step's result.
		case cur.kind == preamble || cur.kind == stepFinish:
		case cur.kind == stepStart && !strings.HasPrefix(line, "  ") && !finishLine.MatchString(line):
			// The step's narration, action and question.
		default:
			start(stepFinish, "")
		}
		cur.lines = append(cur.lines, line)
		if stepEnd.MatchString(line) {
			start(ended, "") // nothing of the step follows its ✓ or ✗
		}
	}
	return chunks
}

// podName is the name of a pod as a heading gives it (NAME or NS/NAME).
func podName(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// podStories lays out a scenario's plain output (the stdout of a capture
// of kubesim play) again: the steps in their order, then each pod's
// blocks, pods sorted by name, then by their blocks (pods of one
// controller have names made equal by normalization).
func podStories(text string) string {
	if !strings.HasPrefix(text, "$ kubesim play ") {
		return text
	}
	head, rest, ok := strings.Cut(text, "--- stdout\n")
	if !ok {
		return text
	}
	stdout, stderr := rest, ""
	if i := strings.Index(rest, "\n--- stderr\n"); i >= 0 {
		stdout, stderr = rest[:i+1], rest[i+1:]
	}
	var b strings.Builder
	b.WriteString(head + "--- stdout\n")
	stories := map[string][]chunk{}
	for _, c := range splitChunks(strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")) {
		switch {
		case c.kind == podBlock:
			stories[c.pod] = append(stories[c.pod], c)
		case len(c.lines) == 0:
		case c.kind == stepStart:
			b.WriteString("\n" + strings.Join(c.lines, "\n") + "\n")
		default:
			b.WriteString(strings.Join(c.lines, "\n") + "\n")
		}
	}
	writeStories(&b, stories)
	b.WriteString(stderr)
	return b.String()
}

// writeStories writes each pod's blocks under one heading, a stage's
// heading once where the printer repeated it after step text.
func writeStories(b *strings.Builder, stories map[string][]chunk) {
	var texts []string
	for _, chunks := range stories {
		var s strings.Builder
		last := ""
		for _, c := range chunks {
			lines := c.lines
			if stageHeading.MatchString(lines[0]) {
				if lines[0] == last {
					lines = lines[1:]
				} else {
					last = lines[0]
					s.WriteString("\n")
				}
			}
			s.WriteString(strings.Join(lines, "\n") + "\n")
		}
		texts = append(texts, s.String())
	}
	sort.Strings(texts)
	if len(texts) > 0 {
		b.WriteString("\n=== (golden: each pod's stage blocks, moved here from among the steps; at speed 0 where they fall varies) ===\n")
	}
	for _, t := range texts {
		b.WriteString(t)
	}
}
