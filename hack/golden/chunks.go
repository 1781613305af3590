package main

import (
	"regexp"
	"strings"
)

// The plain output of a scenario, as the printer writes it: chunks of
// lines, each printed at once (a step's start, a step's result, a pod's
// stage block, an aside). Nothing in the text marks where one chunk
// ends; splitChunks tells them apart by their first lines.

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
			start(podBlock, asideOf(line, &lastPod))
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

// The stories of the asides that name no pod: a controller's action on
// another object (a Service's EndpointSlices, a namespace), and the
// container runtime's actions (a restart), which name the container and
// the node but not the pod.
const (
	controllers = "~ controllers"
	containers  = "~ container runtime"
)

// runtimeAside starts an aside of the container runtime.
var runtimeAside = regexp.MustCompile(`^  · (?:runtime|运行时) `)

// asideOf returns the story an aside belongs to: the pod whose etcd key
// it names (which becomes *lastPod), containers or controllers.
func asideOf(line string, lastPod *string) string {
	if m := podKey.FindStringSubmatch(line); m != nil {
		*lastPod = m[1]
		return m[1]
	}
	if runtimeAside.MatchString(line) {
		return containers
	}
	return controllers
}

// podName is the name of a pod as a heading gives it (NAME or NS/NAME).
func podName(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// paragraphs cuts a block's lines into paragraphs: a line indented by 4
// spaces or less with the lines indented deeper after it (a request's
// trace under its route, a write's changes under its heading). The
// printer gives no sign where one event's lines end and the next one's
// begin when both are of the same stage, so the events of a stage are
// compared paragraph by paragraph.
func paragraphs(lines []string) []string {
	var out []string
	for _, line := range lines {
		if len(out) == 0 || indent(line) <= 4 {
			out = append(out, "")
		}
		out[len(out)-1] += line + "\n"
	}
	return out
}

// indent is the number of spaces a line starts with.
func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// splitPlay cuts a capture of kubesim play into its head (command line,
// exit status, "--- stdout"), the lines of its stdout and the rest (its
// stderr section); ok is false for any other capture.
func splitPlay(text string) (head string, stdout []string, rest string, ok bool) {
	if !strings.HasPrefix(text, "$ kubesim play ") {
		return "", nil, "", false
	}
	head, out, ok := strings.Cut(text, "--- stdout\n")
	if !ok {
		return "", nil, "", false
	}
	head += "--- stdout\n"
	if i := strings.Index(out, "\n--- stderr\n"); i >= 0 {
		out, rest = out[:i+1], out[i+1:]
	}
	return head, strings.Split(strings.TrimSuffix(out, "\n"), "\n"), rest, true
}
