package main

import (
	"regexp"
	"sort"
	"strings"
)

// The plain output of a scenario interleaves the steps (each one's
// narration, action, question, then its result), in their fixed order,
// with the pods' stage blocks, printed as the cluster makes them. At
// speed 0 the cluster races the steps: where a block falls among the
// steps, how the blocks of several pods and a pod's events and asides
// interleave, differ from run to run. Two rules lay such an output out
// again: headStages, before the pods' names are normalized, gives every
// stage paragraph its pod's heading; podStories, after, keeps the steps
// where they are and moves the pods' paragraphs after them, as sets.

// podPath finds the pod a paragraph is about in a request's path.
var podPath = regexp.MustCompile(`/pods/([^/\s]+)`)

// headStages writes each pod block of a play's output again so that
// every paragraph of a stage comes after its pod's heading of that stage.
// The printer gives a pod's next event of the same stage no heading, so
// such a paragraph may follow another pod's block or an aside: one that
// names a pod with a heading (in a request's path) is that pod's, and
// the paragraphs after it in its chunk too. The runtime's lines of a
// container started again go under stage 6. An aside keeps its line and
// the changes under it; a controller's aside all its paragraphs.
func headStages(text string) string {
	head, lines, rest, ok := splitPlay(text)
	if !ok {
		return text
	}
	var b strings.Builder
	b.WriteString(head)
	last := map[string]string{}  // pod → its last stage heading
	sixth := map[string]string{} // pod → its heading of stage 6
	lastPod := ""                // the pod headed last
	for _, c := range splitChunks(lines) {
		if c.kind != podBlock {
			if c.kind == stepStart {
				b.WriteString("\n")
			}
			b.WriteString(joinLines(c.lines))
			continue
		}
		body, pod, headed := c.lines, c.pod, ""
		if stageHeading.MatchString(body[0]) {
			last[pod], lastPod, headed, body = body[0], pod, body[0], body[1:]
			if strings.HasPrefix(headed, "[6/") {
				sixth[pod] = headed
			}
			b.WriteString("\n" + headed + "\n")
		}
		for i, p := range paragraphs(body) {
			if m := podPath.FindStringSubmatch(p); m != nil && last[m[1]] != "" {
				pod = m[1]
			} else if last[pod] == "" && pod != controllers {
				pod = lastPod // after a runtime aside, which names no pod
			}
			aside := asideLine.MatchString(body[0]) && (i == 0 || pod == controllers || changesHead.MatchString(firstLine(p)))
			h := last[pod]
			if runtimeStage.MatchString(p) && sixth[pod] != "" {
				h = sixth[pod] // a container started again: stage 6's work
			}
			if !aside && h != "" && h != headed {
				b.WriteString("\n" + h + "\n")
				headed = h
			}
			b.WriteString(p)
		}
	}
	b.WriteString(rest)
	return b.String()
}

// runtimeStage is a line of the container runtime in a stage block.
var runtimeStage = regexp.MustCompile(`^    (?:runtime|运行时) `)

// joinLines joins lines, each with its newline.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// firstLine is s up to its first newline.
func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// podStories lays out a play's output again: the steps in their order,
// then the pods' stories (see storyBook.write).
func podStories(text string) string {
	head, lines, rest, ok := splitPlay(text)
	if !ok {
		return text
	}
	var b strings.Builder
	b.WriteString(head)
	book := storyBook{}
	for _, c := range splitChunks(lines) {
		switch {
		case c.kind == podBlock:
			book.add(c)
		case c.kind == stepStart:
			b.WriteString("\n" + joinLines(c.lines))
		default:
			b.WriteString(joinLines(c.lines))
		}
	}
	book.write(&b)
	b.WriteString(rest)
	return b.String()
}

// storyBook collects the pods' stories: for each pod, the paragraphs of
// each of its stages and of its asides, as sets.
type storyBook struct {
	sections map[string]map[string]map[string]bool // pod → heading → paragraphs
}

// add files the paragraphs of c (headed by headStages) under its pod's
// stage, or its asides.
func (sb *storyBook) add(c chunk) {
	heading, body := asides, c.lines
	if stageHeading.MatchString(c.lines[0]) {
		heading, body = c.lines[0], c.lines[1:]
	}
	if sb.sections == nil {
		sb.sections = map[string]map[string]map[string]bool{}
	}
	if sb.sections[c.pod] == nil {
		sb.sections[c.pod] = map[string]map[string]bool{}
	}
	if sb.sections[c.pod][heading] == nil {
		sb.sections[c.pod][heading] = map[string]bool{}
	}
	for _, p := range paragraphs(body) {
		sb.sections[c.pod][heading][p] = true
	}
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
