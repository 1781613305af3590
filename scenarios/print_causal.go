package scenarios

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// The plain printer prints what happened during a step in the order it
// happened, not in the order the events reached it. A controller's
// action is recorded when its sync ends: the node lifecycle controller's
// sync that set a node's Ready condition to Unknown ends after its
// writes of the node's pods, by which time its own taint sync, which
// that write queued, may have ended and been printed. So while a step
// runs, the blocks ready to print wait (pending); when the step ends,
// when the next begins, or when the gate holds, they print sorted by the
// time each one's evidence shows (a sync's start, a write's, a watch
// event's delivery), and the blocks of etcd writes among them by
// revision, so that the revisions printed never go back.

// stageBlock names the block printed last: a pod's stage, or (stage 0)
// an aside.
type stageBlock struct {
	pod   types.UID
	stage flow.Stage
}

// etcdRevision is the revision of the etcd write ev shows; 0 for none.
func etcdRevision(ev flow.Event) int64 {
	if ev.Etcd == nil {
		return 0
	}
	return ev.Etcd.Revision
}

// emit makes h ready to print: at once before the first step and after
// the last, else at the next flush. The caller holds p.mu.
func (p *PlainPrinter) emit(h heldBlock) {
	if h.at.IsZero() {
		h.at = time.Now() // no time in the evidence: when it came
	}
	p.pending = append(p.pending, h)
	if p.step == 0 || p.done {
		p.flushPending()
	}
}

// flushPending prints the pending blocks in causal order. The caller
// holds p.mu.
func (p *PlainPrinter) flushPending() {
	if len(p.pending) == 0 {
		return
	}
	blocks := causalOrder(p.pending)
	p.pending = nil
	var b strings.Builder
	for _, h := range blocks {
		p.writeBlock(&b, h)
	}
	p.writeTallies(&b)
	p.out(b.String())
}

// causalOrder sorts blocks by time (stable: blocks of the same time keep
// the order they came in), then puts the blocks of etcd writes, in the
// places they took, in revision order: two writers' clocks may be read a
// moment after their writes, in either order, but etcd's revisions say
// which came first.
func causalOrder(blocks []heldBlock) []heldBlock {
	slices.SortStableFunc(blocks, func(a, b heldBlock) int { return a.at.Compare(b.at) })
	var places []int
	var writes []heldBlock
	for i, h := range blocks {
		if h.rev > 0 {
			places = append(places, i)
			writes = append(writes, h)
		}
	}
	slices.SortStableFunc(writes, func(a, b heldBlock) int { return cmp.Compare(a.rev, b.rev) })
	for k, i := range places {
		blocks[i] = writes[k]
	}
	return blocks
}
