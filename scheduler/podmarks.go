package scheduler

import (
	"context"
	"errors"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// errPodGone ends a hold whose pod was deleted, or bound by someone else,
// while it was held.
var errPodGone = errors.New("the pod was deleted or bound elsewhere while held")

// podStages keeps, per pod, what the scheduler did about the stages of
// the pod's creation: the points it was held at (each at most once) and
// whether its stage-4 event was recorded (once, by the first attempt that
// found a node). A hold under way ends early when forget is called for
// its pod. The memory of a pod goes with forget, which the informers'
// handlers call when the pod leaves the scheduler's sight (bound, or
// deleted). Safe for concurrent use.
type podStages struct {
	gate *flow.Gate

	mu   sync.Mutex
	pods map[types.UID]*podMarks
}

type podMarks struct {
	marks flow.Marks // the points held at; stage 4 once recorded
	// stop ends the hold under way, if any.
	stop context.CancelCauseFunc
}

func newPodStages(gate *flow.Gate) *podStages {
	return &podStages{gate: gate, pods: map[types.UID]*podMarks{}}
}

// marksLocked returns uid's marks, made if needed.
func (p *podStages) marksLocked(uid types.UID) *podMarks {
	m := p.pods[uid]
	if m == nil {
		m = &podMarks{}
		p.pods[uid] = m
	}
	return m
}

// stage returns the stage of an attempt that found a node for the pod:
// flow.StageScheduled the first time, 0 after that.
func (p *podStages) stage(uid types.UID) flow.Stage {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.marksLocked(uid).marks.Record(flow.StageScheduled) {
		return 0
	}
	return flow.StageScheduled
}

// first reports whether the pod reaches point for the first time, and
// remembers that it did.
func (p *podStages) first(uid types.UID, point flow.Point) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.marksLocked(uid).marks.Hold(point)
}

// hold waits at the gate with the pod at point. It returns nil when the
// pod may go on, or why it may not: ctx's error (the scheduler is
// stopping), or errPodGone (forget was called meanwhile). With no gate it
// returns nil at once.
func (p *podStages) hold(ctx context.Context, point flow.Point, pod *corev1.Pod) error {
	if p.gate == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	p.mu.Lock()
	m, ok := p.pods[pod.UID]
	if !ok {
		// Forgotten already: gone.
		p.mu.Unlock()
		return errPodGone
	}
	m.stop = stop
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		m.stop = nil
		p.mu.Unlock()
	}()
	b := flow.Boundary{Point: point, Component: "scheduler", Object: podRef(pod)}
	if err := p.gate.Wait(hctx, b); err != nil {
		return context.Cause(hctx)
	}
	return nil
}

// forget drops what is known of the pod, ending its hold under way (with
// errPodGone).
func (p *podStages) forget(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.pods[uid]; m != nil {
		if m.stop != nil {
			m.stop(errPodGone)
		}
		delete(p.pods, uid)
	}
}

// triedBefore reports whether a scheduler has already reported an attempt
// for the pod in its status (the condition PodScheduled): then the pod is
// not held before scheduling, even by a scheduler started since.
func triedBefore(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return true
		}
	}
	return false
}

// podRef is the pod as flow events name it.
func podRef(pod *corev1.Pod) flow.ObjectRef {
	return flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
}
