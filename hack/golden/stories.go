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
	book := storyBook{}
	for _, c := range splitChunks(strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")) {
		switch {
		case c.kind == podBlock:
			book.add(c)
		case len(c.lines) == 0:
		case c.kind == stepStart:
			b.WriteString("\n" + strings.Join(c.lines, "\n") + "\n")
		default:
			b.WriteString(strings.Join(c.lines, "\n") + "\n")
		}
	}
	book.write(&b)
	b.WriteString(stderr)
	return b.String()
}

// storyBook collects the pods' stories: for each pod, the paragraphs of
// each of its stages, as sets.
type storyBook struct {
	sections map[string]map[string]map[string]bool // pod → heading → paragraphs
	last     map[string]string                     // pod → its last stage heading
}

// podPath finds the pod a paragraph is about in a request's path.
var podPath = regexp.MustCompile(`/pods/([^/\s]+)`)

// add files the paragraphs of c. A stage's paragraphs go under the
// stage the pod was in when they were printed; the printer gives a pod's
// next event of the same stage no heading, so a paragraph may follow
// another pod's block or an aside: one that names a pod with a story (in
// a request's path) is filed under that pod, and the paragraphs after it
// in c with it. An aside (its line, and the changes under an etcd
// write's) goes under the pod's asides, since when it comes among the
// stages varies.
func (sb *storyBook) add(c chunk) {
	if sb.sections == nil {
		sb.sections, sb.last = map[string]map[string]map[string]bool{}, map[string]string{}
	}
	body := c.lines
	if stageHeading.MatchString(c.lines[0]) {
		sb.last[c.pod], body = c.lines[0], c.lines[1:]
		sb.section(c.pod, sb.last[c.pod]) // a heading alone still opens its section
	}
	pod := c.pod
	for i, p := range paragraphs(body) {
		if m := podPath.FindStringSubmatch(p); m != nil && sb.sections[m[1]] != nil {
			pod = m[1]
		}
		heading, ok := sb.last[pod]
		switch {
		case i == 0 && asideLine.MatchString(p), i > 0 && asideLine.MatchString(body[0]) && changesHead.MatchString(strings.SplitN(p, "\n", 2)[0]):
			heading = asides
		case !ok:
			heading = beforeStages
		}
		sb.section(pod, heading)[p] = true
	}
}

// section returns the paragraphs of pod under heading, made if need be.
func (sb *storyBook) section(pod, heading string) map[string]bool {
	if sb.sections[pod] == nil {
		sb.sections[pod] = map[string]map[string]bool{}
	}
	if sb.sections[pod][heading] == nil {
		sb.sections[pod][heading] = map[string]bool{}
	}
	return sb.sections[pod][heading]
}

// write writes the stories, sorted, under one heading. Within a story,
// the paragraphs of each stage come under the stage's heading, in the
// order of the stages, then the asides (a pod's other writes, its
// container's restarts). Each distinct paragraph is written once,
// sorted: how a stage's events interleave varies, a container that keeps
// failing at speed 0 repeats the same ones as often as time allows, and
// the pods of one controller, whose names normalization made equal, have
// one story.
func (sb *storyBook) write(b *strings.Builder) {
	var texts []string
	for _, sections := range sb.sections {
		texts = append(texts, storyText(sections))
	}
	sort.Strings(texts)
	if len(texts) > 0 {
		b.WriteString("\n=== (golden: the pods' stage blocks, moved here from among the steps; each distinct paragraph once, sorted) ===\n")
	}
	for _, t := range texts {
		b.WriteString(t)
	}
}

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

// beforeStages and asides are the headings of what a story printed
// before its first stage, and of its asides.
const (
	beforeStages = "  (before any stage)"
	asides       = "  (asides)"
)

// storyText lays out the sections of one story in the order of the
// stages, each section's paragraphs sorted.
func storyText(sections map[string]map[string]bool) string {
	var headings []string
	for h := range sections {
		headings = append(headings, h)
	}
	sort.Slice(headings, func(i, j int) bool { return stageOrder(headings[i]) < stageOrder(headings[j]) })
	var s strings.Builder
	for _, h := range headings {
		s.WriteString("\n" + h + "\n")
		var blocks []string
		for body := range sections[h] {
			blocks = append(blocks, body)
		}
		sort.Strings(blocks)
		s.WriteString(strings.Join(blocks, ""))
	}
	return s.String()
}

// stageNumber is the stage a heading names ("[3/8]").
var stageNumber = regexp.MustCompile(`^\[(\d+)/\d+\] `)

// stageOrder orders headings: what came before any stage, who created
// the pod, stages 1 to 8, the asides.
func stageOrder(heading string) string {
	switch heading {
	case beforeStages:
		return ""
	case asides:
		return "9"
	}
	if m := stageNumber.FindStringSubmatch(heading); m != nil {
		return m[1] + heading
	}
	return "0" + heading
}
