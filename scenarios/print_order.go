package scenarios

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// The plain printer prints a pod's stage where the scenario narrates it:
// a stage often happens while an earlier step still waits (the
// scheduler hears of a pod during the step that created it), but its
// block belongs after the narration of the step that expects it
// (podStage). Until that step starts, the block is held, and with it
// whatever else is printed of the same pod, so that its story stays in
// order.

// stageKey names a stage of a pod by the pod's name.
type stageKey struct {
	namespace, pod string
	stage          flow.Stage
}

// heldBlock is output held for a step: a stage's lines (its header is
// written when it is printed), or an aside, already laid out.
type heldBlock struct {
	step  int // the step it waits for
	stage flow.Stage
	pod   flow.ObjectRef
	text  string // for an aside; the lines for a stage
	// at is when what it shows happened (the event's time, or when the
	// printer had it); rev the etcd revision of the write it shows, if
	// any. Blocks print in that order (print_causal.go).
	at  time.Time
	rev int64
	// creator: the block says who created the pod.
	creator bool
}

// StageStep is a stage of a pod that a scenario's steps expect (a
// podStage expectation), with the first step that expects it.
type StageStep struct {
	Namespace string     `json:"namespace"`
	Pod       string     `json:"pod"`
	Stage     flow.Stage `json:"stage"`
	Step      int        `json:"step"`
}

// StageSteps lists the stages s's steps expect, each with the first step
// that does, in step order.
func StageSteps(s *Scenario) []StageStep {
	var out []StageStep
	seen := map[stageKey]bool{}
	for _, st := range s.Steps {
		for _, e := range st.Expect {
			if ps, ok := e.(*PodStageExpectation); ok {
				k := stageKey{ps.Namespace, ps.Pod, ps.Stage}
				if !seen[k] {
					seen[k] = true
					out = append(out, StageStep{Namespace: ps.Namespace, Pod: ps.Pod, Stage: ps.Stage, Step: st.Index})
				}
			}
		}
	}
	return out
}

// Follow makes the printer hold each stage block until the step that
// expects that stage (its first podStage expectation) has started. Call
// it before the scenario plays; without it, blocks print as they come.
func (p *PlainPrinter) Follow(s *Scenario) { p.FollowStages(StageSteps(s)) }

// FollowStages is Follow for the stages StageSteps listed (a replay
// has them from its recording, not from the scenario).
func (p *PlainPrinter) FollowStages(stages []StageStep) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expects = map[stageKey]int{}
	for _, s := range stages {
		k := stageKey{s.Namespace, s.Pod, s.Stage}
		if _, seen := p.expects[k]; !seen {
			p.expects[k] = s.Step
		}
	}
}

// holdFor says for which step output about pod ref (of stage, 0 for an
// aside) must wait: 0 when it may print now. The caller holds p.mu.
func (p *PlainPrinter) holdFor(ref flow.ObjectRef, stage flow.Stage) int {
	step := 0
	if stage != 0 {
		step = p.expects[stageKey{ref.Namespace, ref.Name, stage}]
	}
	if held := p.held[ref.UID]; len(held) > 0 {
		step = max(step, held[len(held)-1].step)
	}
	if step <= p.step {
		return 0
	}
	return step
}

// hold keeps b for its step. The caller holds p.mu.
func (p *PlainPrinter) hold(b heldBlock) {
	if b.at.IsZero() {
		b.at = time.Now()
	}
	if p.held == nil {
		p.held = map[types.UID][]heldBlock{}
	}
	if len(p.held[b.pod.UID]) == 0 {
		p.heldPods = append(p.heldPods, b.pod.UID)
	}
	p.held[b.pod.UID] = append(p.held[b.pod.UID], b)
}

// flushHeld makes ready to print (emit), pod by pod in the order they
// were first held, the held output whose step has started (all of it
// with everything). The caller holds p.mu.
func (p *PlainPrinter) flushHeld(everything bool) {
	var still []types.UID
	for _, uid := range p.heldPods {
		blocks := p.held[uid]
		i := 0
		for ; i < len(blocks) && (everything || (blocks[i].step <= p.step && !p.awaits(uid))); i++ {
			p.emit(blocks[i])
		}
		if p.held[uid] = blocks[i:]; len(blocks[i:]) > 0 {
			still = append(still, uid)
		}
	}
	p.heldPods = still
}

// writeBlock writes a block: a stage's header unless the block before
// was of the same pod and stage, then its lines; or an aside. The caller
// holds p.mu.
func (p *PlainPrinter) writeBlock(b *strings.Builder, h heldBlock) {
	if p.counted(h) {
		return // compact output counts it (print_compact.go)
	}
	if h.stage != 0 {
		p.stageHeader(b, h.pod, h.stage)
	} else {
		p.lastBlock = stageBlock{pod: h.pod.UID}
	}
	b.WriteString(h.text)
}
