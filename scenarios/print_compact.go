package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// Compact output (play --plain --compact) is for reading a whole lesson:
// of the pods a controller made, the first of each owner (a ReplicaSet,
// a Job...) is printed as usual, stage by stage, with its creator and
// its other writes; the others are not, but each one's stage blocks are
// counted, and where the blocks would have printed a line says how many
// more pods went through which stages, and how many of their other
// blocks (writes, restarts, failed scheduling attempts) were left out.
// A pod no controller made (the lesson's own) is always printed.

// compactWords are the words of the compact summaries.
var compactWords = map[string]flow.Text{
	"same": {En: "… %d more %s of %s went through the same %d stages as pod %s: %s",
		Zh: "… %[3]s 的另外 %[1]d 个 Pod 经历了与 Pod %[5]s 相同的 %[4]d 个阶段：%[6]s"},
	"stages": {En: "… %d more %s of %s went through stages %s (pod %s is shown): %s",
		Zh: "… %[3]s 的另外 %[1]d 个 Pod 经历了阶段 %[4]s（展示的是 Pod %[5]s）：%[6]s"},
	"quiet": {En: "… %[1]d more %[2]s of %[3]s: %[4]d %[5]s not shown (pod %[6]s is shown): %[7]s",
		Zh: "… %[3]s 的另外 %[1]d 个 Pod：%[4]d 个块未显示（展示的是 Pod %[6]s）：%[7]s"},
	"other": {En: "  (and %d other %s of theirs, not shown)", Zh: "（它们的另外 %[1]d 个块未显示）"},
	"pod":   {En: "pod", Zh: "Pod"},
	"pods":  {En: "pods", Zh: "Pod"},
	"block": {En: "block", Zh: "块"},
	// blocks: the plural.
	"blocks": {En: "blocks", Zh: "块"},
}

// podOwner is the owner a controller's pod was made for: its group.
type podOwner struct {
	uid  types.UID
	name string // "ReplicaSet web-5d9c"
}

// compactState is what compact output keeps.
type compactState struct {
	on       bool
	owners   map[types.UID]podOwner       // pod → its owner, from its creator
	shown    map[types.UID]bool           // pods decided: true printed, false counted
	example  map[types.UID]flow.ObjectRef // owner → the pod printed for it
	exStages map[types.UID][]flow.Stage   // the printed pod's stages
	tally    []*podTally                  // counted since the last flush, in order
}

// podTally counts a counted pod's blocks since the last flush.
type podTally struct {
	pod    flow.ObjectRef
	owner  podOwner
	stages []flow.Stage
	other  int
}

// Compact makes the printer print compact output. Call it before the
// scenario plays.
func (p *PlainPrinter) Compact() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.compact = compactState{on: true, owners: map[types.UID]podOwner{}, shown: map[types.UID]bool{},
		example: map[types.UID]flow.ObjectRef{}, exStages: map[types.UID][]flow.Stage{}}
}

// compactOn reports whether the printer prints compact output.
func (p *PlainPrinter) compactOn() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.compact.on
}

// noteOwner keeps the owner of the pod a creator's event made. The
// caller holds p.mu.
func (p *PlainPrinter) noteOwner(ev flow.Event) {
	a := flow.CreatorOf(ev)
	if !p.compact.on || a == nil || a.Owner == nil || ev.Object.Kind != "Pod" {
		return
	}
	p.compact.owners[ev.Object.UID] = podOwner{uid: a.Owner.UID, name: a.Owner.Kind + " " + a.Owner.Name}
}

// counted reports whether compact output counts block h instead of
// printing it, and counts it. A pod is decided at its first block: the
// first of its owner's, or one whose owner is not known then, is
// printed. The caller holds p.mu.
func (p *PlainPrinter) counted(h heldBlock) bool {
	c := &p.compact
	uid := h.pod.UID
	if !c.on || h.pod.Kind != "Pod" || uid == "" {
		return false
	}
	shown, decided := c.shown[uid]
	owner, known := c.owners[uid]
	if !decided {
		_, taken := c.example[owner.uid]
		shown = !known || !taken
		c.shown[uid] = shown
		if shown && known {
			c.example[owner.uid] = h.pod
		}
	}
	if shown {
		if known && h.stage != 0 && c.example[owner.uid].UID == uid && !slices.Contains(c.exStages[owner.uid], h.stage) {
			c.exStages[owner.uid] = append(c.exStages[owner.uid], h.stage)
		}
		return false
	}
	t := c.tallyOf(h.pod, owner)
	switch {
	case h.creator:
	case h.stage != 0:
		if !slices.Contains(t.stages, h.stage) {
			t.stages = append(t.stages, h.stage)
		}
	default:
		t.other++
	}
	return true
}

// tallyOf returns the tally of pod, made if need be.
func (c *compactState) tallyOf(pod flow.ObjectRef, owner podOwner) *podTally {
	for _, t := range c.tally {
		if t.pod.UID == pod.UID {
			return t
		}
	}
	t := &podTally{pod: pod, owner: owner}
	c.tally = append(c.tally, t)
	return t
}

// writeTallies writes a line per owner and set of stages for the pods
// counted since the last flush, and forgets them. The caller holds p.mu.
func (p *PlainPrinter) writeTallies(b *strings.Builder) {
	c := &p.compact
	type group struct {
		owner  podOwner
		stages string
		pods   []string
		other  int
		n      int
	}
	var groups []*group
	for _, t := range c.tally {
		slices.Sort(t.stages)
		stages := stageList(t.stages)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.owner == t.owner && g.stages == stages })
		if i < 0 {
			groups = append(groups, &group{owner: t.owner, stages: stages, n: len(t.stages)})
			i = len(groups) - 1
		}
		groups[i].pods = append(groups[i].pods, nsName(t.pod.Namespace, t.pod.Name))
		groups[i].other += t.other
	}
	c.tally = nil
	for _, g := range groups {
		if g.n == 0 && g.other == 0 {
			continue // only its creator's block
		}
		p.writeTally(b, g.owner, g.stages, g.n, g.pods, g.other)
	}
	if len(groups) > 0 {
		p.lastBlock = stageBlock{}
	}
}

// writeTally writes the line of pods of owner that went through stages
// (n of them), and other blocks of theirs left out.
func (p *PlainPrinter) writeTally(b *strings.Builder, owner podOwner, stages string, n int, pods []string, other int) {
	c := &p.compact
	ex := c.example[owner.uid]
	exName := nsName(ex.Namespace, ex.Name)
	exStages := slices.Clone(c.exStages[owner.uid])
	slices.Sort(exStages)
	noun := compactWords["pods"].In(p.lang)
	if len(pods) == 1 {
		noun = compactWords["pod"].In(p.lang)
	}
	names := strings.Join(pods, ", ")
	switch {
	case n == 0:
		word := compactWords["blocks"].In(p.lang)
		if other == 1 {
			word = compactWords["block"].In(p.lang)
		}
		fmt.Fprintf(b, compactWords["quiet"].In(p.lang)+"\n", len(pods), noun, owner.name, other, word, exName, names)
		return
	case stageList(exStages) == stages:
		fmt.Fprintf(b, compactWords["same"].In(p.lang), len(pods), noun, owner.name, n, exName, names)
	default:
		fmt.Fprintf(b, compactWords["stages"].In(p.lang), len(pods), noun, owner.name, stages, exName, names)
	}
	if other > 0 {
		word := compactWords["blocks"].In(p.lang)
		if other == 1 {
			word = compactWords["block"].In(p.lang)
		}
		fmt.Fprintf(b, compactWords["other"].In(p.lang), other, word)
	}
	b.WriteString("\n")
}

// stageList writes sorted stages as ranges: "1–8", "1–3, 6", or "-".
func stageList(stages []flow.Stage) string {
	if len(stages) == 0 {
		return "-"
	}
	var parts []string
	for i := 0; i < len(stages); {
		j := i
		for j+1 < len(stages) && stages[j+1] == stages[j]+1 {
			j++
		}
		part := strconv.Itoa(int(stages[i]))
		if j > i {
			part += "–" + strconv.Itoa(int(stages[j]))
		}
		parts = append(parts, part)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
