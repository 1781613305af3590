package scenarios_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// stageCounter keeps, from the run's own flow events, the stages each
// pod went through, by pod name.
type stageCounter struct {
	mu     sync.Mutex
	stages map[string]map[flow.Stage]bool
}

func (s *stageCounter) StepStarted(scenarios.StepInfo)                        {}
func (s *stageCounter) StepFinished(scenarios.StepInfo, scenarios.StepResult) {}
func (s *stageCounter) Event(ev flow.Event) {
	if ev.Stage == 0 || ev.Object.Kind != "Pod" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stages[ev.Object.Name] == nil {
		s.stages[ev.Object.Name] = map[flow.Stage]bool{}
	}
	s.stages[ev.Object.Name][ev.Stage] = true
}

// tee hands every step and event to each observer.
type tee []interface {
	scenarios.Observer
	scenarios.EventObserver
}

func (t tee) StepStarted(s scenarios.StepInfo) {
	for _, o := range t {
		o.StepStarted(s)
	}
}

func (t tee) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	for _, o := range t {
		o.StepFinished(s, r)
	}
}

func (t tee) Event(ev flow.Event) {
	for _, o := range t {
		o.Event(ev)
	}
}

var (
	compactHeader = regexp.MustCompile(`(?m)^\[(\d)/8\] .* — pod (\S+)$`)
	compactSame   = regexp.MustCompile(`(?m)^… (\d+) more pods? of ReplicaSet \S+ went through the same (\d) stages as pod \S+: (.*?)(?:  \(and \d+ other blocks? of theirs, not shown\))?$`)
	compactSome   = regexp.MustCompile(`(?m)^… (\d+) more pods? of ReplicaSet \S+ went through stages ([0-9–, ]+) \(pod \S+ is shown\): (.*?)(?:  \(and \d+ other blocks? of theirs, not shown\))?$`)
	compactSameZh = regexp.MustCompile(`(?m)^… ReplicaSet \S+ 的另外 (\d+) 个 Pod 经历了与 Pod \S+ 相同的 (\d) 个阶段：`)
)

// stagesOf reads "1–3, 6" as the stages it names.
func stagesOf(t *testing.T, list string) []flow.Stage {
	var out []flow.Stage
	for _, part := range strings.Split(list, ", ") {
		from, to, ranged := strings.Cut(part, "–")
		if !ranged {
			to = from
		}
		a, err1 := strconv.Atoi(from)
		b, err2 := strconv.Atoi(to)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad stage list %q", list)
		}
		for s := a; s <= b; s++ {
			out = append(out, flow.Stage(s))
		}
	}
	return out
}

// TestPlayCompact plays a Deployment of eight pods scaled to ten,
// printed in full and compact (in both languages) from the same run:
// compact output prints one pod stage by stage and says of the others,
// in summary lines, which stages they went through; every (pod, stage)
// of the run's own events is printed or summarized exactly once, and
// every summarized one happened; compact output is much shorter, and
// the full output prints every pod's stages.
func TestPlayCompact(t *testing.T) {
	s := mustFind(t, "testdata/deployment-many.yaml")
	c := mustStartCluster(t, s)
	var full, compact, compactZh bytes.Buffer
	fp := scenarios.NewPlainPrinter(&full, "en")
	cp, cz := scenarios.NewPlainPrinter(&compact, "en"), scenarios.NewPlainPrinter(&compactZh, "zh")
	for _, p := range []*scenarios.PlainPrinter{fp, cp, cz} {
		p.Follow(s)
	}
	cp.Compact()
	cz.Compact()
	counter := &stageCounter{stages: map[string]map[flow.Stage]bool{}}
	if err := play(t, c, s, tee{fp, cp, cz, counter}); err != nil {
		t.Fatalf("Play: %v\n%s", err, full.String())
	}
	text := compact.String()
	seen := map[string]map[flow.Stage]int{} // pod → stage → times printed or summarized
	note := func(pod string, st flow.Stage) {
		if seen[pod] == nil {
			seen[pod] = map[flow.Stage]int{}
		}
		seen[pod][st]++
	}
	shownPods := map[string]bool{}
	for _, m := range compactHeader.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		if !shownPods[m[2]] || seen[m[2]][flow.Stage(n)] == 0 {
			note(m[2], flow.Stage(n)) // a stage may get its header again after another block
		}
		shownPods[m[2]] = true
	}
	summarized := 0
	for _, m := range compactSame.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		pods := strings.Split(m[3], ", ")
		if k, _ := strconv.Atoi(m[1]); k != len(pods) {
			t.Errorf("%q counts %d pods, names %d", m[0], k, len(pods))
		}
		for _, pod := range pods {
			summarized++
			for st := flow.Stage(1); st <= flow.Stage(n); st++ {
				note(pod, st)
			}
		}
	}
	for _, m := range compactSome.FindAllStringSubmatch(text, -1) {
		for _, pod := range strings.Split(m[3], ", ") {
			summarized++
			for _, st := range stagesOf(t, m[2]) {
				note(pod, st)
			}
		}
	}
	if len(shownPods) != 1 || summarized == 0 {
		t.Errorf("%d pods printed stage by stage (want 1), %d summarized:\n%s", len(shownPods), summarized, text)
	}
	if len(counter.stages) != 10 {
		t.Errorf("the run's events show %d pods with stages, want 10", len(counter.stages))
	}
	for pod, stages := range counter.stages {
		for st := range stages {
			if seen[pod][st] != 1 {
				t.Errorf("pod %s stage %d: printed or summarized %d times, want 1", pod, st, seen[pod][st])
			}
		}
	}
	for pod, stages := range seen {
		for st := range stages {
			if !counter.stages[pod][st] {
				t.Errorf("compact output says pod %s went through stage %d; the run's events do not", pod, st)
			}
		}
	}
	if zh := compactSameZh.FindAllString(compactZh.String(), -1); len(zh) == 0 {
		t.Errorf("no summary line in zh:\n%s", compactZh.String())
	}
	for lang, out := range map[string]string{"en": text, "zh": compactZh.String()} {
		if i := strings.Index(out, "%!"); i >= 0 {
			t.Errorf("%s: a bad format at %d:\n%s", lang, i, out[max(0, i-200):])
		}
	}
	nc, nf := strings.Count(text, "\n"), strings.Count(full.String(), "\n")
	if nc*3 > nf {
		t.Errorf("compact output has %d lines, full %d: want less than a third", nc, nf)
	}
	if n := len(compactHeader.FindAllStringSubmatch(full.String(), -1)); n < 10*8 {
		t.Errorf("full output has %d stage headers, want at least 80 (10 pods, 8 stages)", n)
	}
}
