package apiserver

import (
	"container/list"
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// Bounds of the pod tracker.
const (
	// maxTrackedPods bounds the tracker: past it, the pod tracked longest
	// ago is forgotten (it gets no more stage events or holds).
	maxTrackedPods = 4096
	// stageWait bounds how long a watch frame waits for the write it
	// carries to be recorded (podTracker.await).
	stageWait = 5 * time.Second
)

// podTracker follows the pods created through this server in this
// process, so that the stages of their creation are recorded in order and
// each gate point holds a pod at most once. A pod is tracked from its
// stage 1 until it is deleted, or until maxTrackedPods newer pods push it
// out; a pod not tracked (created before the process started, or whose
// create failed) gets no stage events and no holds.
//
// For each pod it keeps its marks (flow.Marks): the latest stage
// recorded, so that a stage is recorded only if it comes after every
// stage already recorded for the pod (at most once, never out of order),
// and the points the pod was held at, each once. It also keeps the
// revision of the pod's last write recorded, so that the watch path can
// wait until the write a frame carries has been recorded (await): the
// watch can get a change from etcd before the writing request has
// recorded it.
//
// Events are recorded under the tracker's lock (Recorder.Record never
// blocks), so that a pod's events are numbered in the order decided here.
// Safe for concurrent use.
type podTracker struct {
	max int

	mu   sync.Mutex
	pods map[types.UID]*trackedPod
	age  *list.List // of types.UID, oldest first
}

// trackedPod is what the tracker knows about one pod.
type trackedPod struct {
	elem  *list.Element
	marks flow.Marks // the stages recorded and the points held at
	// rev, nodeName and phase are those of the pod's last write recorded.
	rev      int64
	nodeName string
	phase    corev1.PodPhase
	changed  chan struct{} // closed and replaced when rev changes or the pod is forgotten
}

// newPodTracker returns a tracker that follows at most max pods.
func newPodTracker(max int) *podTracker {
	return &podTracker{max: max, pods: map[types.UID]*trackedPod{}, age: list.New()}
}

// PodStages follows the creation of pods for the API servers that share
// it (Config.PodStages): the API servers of one cluster in one process,
// so that a pod created through one has its later stages recorded by
// the one that serves its binding, status and watches. Each server
// records its events with its own Recorder.
type PodStages struct{ t *podTracker }

// NewPodStages returns a PodStages for API servers to share.
func NewPodStages() *PodStages { return &PodStages{t: newPodTracker(maxTrackedPods)} }

// serverStages is a server's view of a podTracker: its events go to
// the server's recorder.
type serverStages struct {
	*podTracker
	rec *flow.Recorder
}

func (v serverStages) recordStage(ev flow.Event) bool { return v.podTracker.recordStage(v.rec, ev) }
func (v serverStages) recordWrite(op string, pod *corev1.Pod, ev flow.Event) {
	v.podTracker.recordWrite(v.rec, op, pod, ev)
}

// track starts following the pod uid, whose stage 1 is about to be
// recorded. Tracking a pod already tracked does nothing.
func (t *podTracker) track(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.pods[uid]; ok || uid == "" {
		return
	}
	t.pods[uid] = &trackedPod{elem: t.age.PushBack(uid), changed: make(chan struct{})}
	for t.age.Len() > t.max {
		t.forgetLocked(t.age.Front().Value.(types.UID))
	}
}

// abandon forgets a pod whose create failed: one tracked but never
// written. A pod with a recorded write is left alone.
func (t *podTracker) abandon(uid types.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.pods[uid]; ok && p.rev == 0 {
		t.forgetLocked(uid)
	}
}

func (t *podTracker) forgetLocked(uid types.UID) {
	p, ok := t.pods[uid]
	if !ok {
		return
	}
	t.age.Remove(p.elem)
	delete(t.pods, uid)
	close(p.changed)
}

// tracks reports whether pod uid is tracked.
func (t *podTracker) tracks(uid types.UID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.pods[uid]
	return ok
}

// wants reports whether stage s may still be recorded for pod uid: the
// pod is tracked and no stage from s on has been recorded for it.
func (t *podTracker) wants(uid types.UID, s flow.Stage) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pods[uid]
	return ok && !p.marks.Passed(s)
}

// claim reports whether the caller may hold pod uid at point p, before
// stage s: true once per pod and point, for a tracked pod whose stage s
// may still be recorded.
func (t *podTracker) claim(uid types.UID, pt flow.Point, s flow.Stage) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pods[uid]
	return ok && !p.marks.Passed(s) && p.marks.Hold(pt)
}

// recordStage records ev (ev.Stage != 0) if its pod (ev.Object.UID) is
// tracked and ev.Stage comes after every stage recorded for it, and
// reports whether it did.
func (t *podTracker) recordStage(rec *flow.Recorder, ev flow.Event) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pods[ev.Object.UID]
	if !ok || !p.marks.Record(ev.Stage) {
		return false
	}
	rec.Record(ev)
	return true
}

// recordWrite records ev, the evidence of a write (op "create", "update"
// or "delete") that left pod as it is. For a tracked pod, the write gets
// the stage it stands for if that stage may still be recorded: 2 for the
// create, 5 for the write that sets spec.nodeName (the binding), 8 for the
// write that moves status.phase off Pending; any other write is Stage 0.
// A delete forgets the pod.
func (t *podTracker) recordWrite(rec *flow.Recorder, op string, pod *corev1.Pod, ev flow.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev.Stage = 0
	p, ok := t.pods[pod.UID]
	if !ok {
		rec.Record(ev)
		return
	}
	if s := p.stageOf(op, pod); p.marks.Record(s) {
		ev.Stage = s
	}
	rec.Record(ev)
	if op == "delete" {
		t.forgetLocked(pod.UID)
		return
	}
	if ev.Etcd != nil {
		p.rev = ev.Etcd.Revision
	}
	p.nodeName, p.phase = pod.Spec.NodeName, pod.Status.Phase
	close(p.changed)
	p.changed = make(chan struct{})
}

// stageOf says which stage a write of the pod stands for, judged against
// the pod's previous write.
func (p *trackedPod) stageOf(op string, pod *corev1.Pod) flow.Stage {
	switch {
	case op == "create":
		return flow.StagePersisted
	case op != "update":
		return 0
	case p.nodeName == "" && pod.Spec.NodeName != "":
		return flow.StageBindingPersisted
	case isPending(p.phase) && !isPending(pod.Status.Phase):
		return flow.StageStatusPersisted
	}
	return 0
}

// isPending reports whether a pod in phase is not yet running: Pending,
// or no phase at all.
func isPending(phase corev1.PodPhase) bool {
	return phase == corev1.PodPending || phase == ""
}

// await waits until a write of pod uid at revision rev or later has been
// recorded, and reports whether it was. It gives up (false) when the pod
// is not tracked or is forgotten, after timeout, or when ctx is done.
func (t *podTracker) await(ctx context.Context, uid types.UID, rev int64, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		t.mu.Lock()
		p, ok := t.pods[uid]
		if !ok {
			t.mu.Unlock()
			return false
		}
		if p.rev >= rev {
			t.mu.Unlock()
			return true
		}
		changed := p.changed
		t.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
