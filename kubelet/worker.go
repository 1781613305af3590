package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"

	"github.com/kubesim/kubesim/internal/flow"
)

// retryInterval is how soon a failed status write or delete is retried
// (real time, not scaled: it is not part of the simulation).
const retryInterval = 500 * time.Millisecond

// podWorker runs one pod: it steps the pod's machine, records what it did
// (events, flow), and writes its status. The informer hands it new
// versions of the pod through update and remove, which do not block.
type podWorker struct {
	k   *Kubelet
	uid types.UID

	mu      sync.Mutex
	latest  *corev1.Pod
	fresh   bool // latest not yet given to the machine
	removed bool
	signal  chan struct{} // capacity 1: "something changed"
	// endHold ends the gate hold under way, if any: update calls it for
	// a pod being deleted, remove for a pod gone.
	endHold context.CancelFunc

	m       *podMachine
	dirty   bool // a status to send that was not sent
	deleted bool // the kubelet deleted the pod from the API
	// marks has the gate's points the pod reached in this worker (it is
	// held at each at most once).
	marks flow.Marks
	// reported: the pod's phase is off Pending, as this worker's stage-7
	// patch said or as the pod was when the worker began. From then on
	// runtime actions have stage 0.
	reported bool
}

func newPodWorker(k *Kubelet, pod *corev1.Pod) *podWorker {
	// The worker has its pod from the start: run may begin before the
	// caller's first update.
	return &podWorker{k: k, uid: pod.UID, latest: pod, fresh: true, signal: make(chan struct{}, 1)}
}

func (w *podWorker) notify() {
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// update gives the worker the pod's latest version.
func (w *podWorker) update(pod *corev1.Pod) {
	w.mu.Lock()
	w.latest, w.fresh = pod, true
	if pod.DeletionTimestamp != nil && w.endHold != nil {
		w.endHold()
	}
	w.mu.Unlock()
	w.notify()
}

// remove tells the worker the pod is gone from the API.
func (w *podWorker) remove() {
	w.mu.Lock()
	w.removed = true
	if w.endHold != nil {
		w.endHold()
	}
	w.mu.Unlock()
	w.notify()
}

func (w *podWorker) isRemoved() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.removed
}

func (w *podWorker) take() (pod *corev1.Pod, fresh, removed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pod, fresh, removed = w.latest, w.fresh, w.removed
	w.fresh = false
	return
}

// run works on the pod until it is gone, finished, or ctx is done.
func (w *podWorker) run(ctx context.Context) {
	k := w.k
	pod, _, _ := w.take()
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod), "podUID", pod.UID)
	ctx = klog.NewContext(ctx, logger)
	w.m = newPodMachine(k.cfg.Node.Name, k.rt, k.cfg.Delays, k.scale, pod)
	w.m.health = k.staticHealth(pod)
	logger.V(2).Info("Pod arrived", "phase", pod.Status.Phase)
	for _, p := range w.problems() {
		logger.Info("Ignoring annotation", "problem", p)
	}
	w.reported = !pendingPhase(pod.Status.Phase)
	untouched := w.m.untouched()
	// The kubelet reports the pod's status before it does anything for it
	// (Pending, ContainerCreating, no sandbox yet).
	if s, changed := w.m.nextStatus(k.clock.Now()); changed {
		w.dirty = !w.writeStatus(ctx, s)
	}
	// Then, the first time, the gate may hold it before its sandbox and
	// containers.
	if untouched && pod.DeletionTimestamp == nil {
		if err := w.hold(ctx, flow.PointBeforeContainers); err != nil {
			return
		}
		if !w.waitVolumes(ctx, pod) {
			return
		}
	}
	for {
		if ctx.Err() != nil {
			return
		}
		now := k.clock.Now()
		p, fresh, removed := w.take()
		if removed {
			w.record(now, w.m.remove(now))
			logger.V(2).Info("Pod removed")
			return
		}
		if fresh {
			w.m.setPod(p, now)
		}
		out, wake := w.m.step(now)
		w.record(now, out)
		if due := !wake.IsZero() && !wake.After(now); due && !w.m.terminated {
			continue // one status per sync: the steps due by now first
		}
		if s, changed := w.m.nextStatus(now); changed || w.dirty {
			w.dirty = !w.writeStatus(ctx, s)
		}
		if w.m.terminated && !w.dirty {
			if w.m.pod.DeletionTimestamp == nil {
				return // finished: nothing more to do for this pod
			}
			if w.deletePod(ctx) {
				return
			}
		}
		if w.dirty || (w.m.terminated && !w.deleted) {
			if r := now.Add(retryInterval); wake.IsZero() || r.Before(wake) {
				wake = r
			}
		}
		if !wake.IsZero() && !wake.After(now) {
			continue
		}
		w.wait(ctx, wake.Sub(now), !wake.IsZero())
	}
}

func (w *podWorker) wait(ctx context.Context, d time.Duration, timed bool) {
	if !timed {
		select {
		case <-ctx.Done():
		case <-w.signal:
		}
		return
	}
	t := w.k.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-w.signal:
	case <-t.C():
	}
}

func (w *podWorker) problems() []string {
	var out []string
	for _, c := range w.m.containers() {
		out = append(out, c.b.problems...)
	}
	return out
}

// hold waits at the kubelet's gate with the pod at point, unless it was
// held there before or there is no gate. A hold ends when the gate lets
// the pod go, when the pod is being deleted or is gone (update, remove),
// or when ctx is done: then hold returns ctx's error. The worker's signal
// is raised afterwards, so that a change that came meanwhile is seen.
func (w *podWorker) hold(ctx context.Context, point flow.Point) error {
	gate := w.k.cfg.Gate
	if gate == nil || !w.marks.Hold(point) {
		return nil
	}
	hctx, end := context.WithCancel(ctx)
	defer end()
	w.mu.Lock()
	if w.removed || (w.latest != nil && w.latest.DeletionTimestamp != nil) {
		w.mu.Unlock()
		return nil
	}
	w.endHold = end
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.endHold = nil
		w.mu.Unlock()
		w.notify()
	}()
	b := flow.Boundary{Point: point, Component: w.component(), Object: w.podRef()}
	if err := gate.Wait(hctx, b); err != nil && ctx.Err() == nil {
		klog.FromContext(ctx).V(2).Info("Hold ended: the pod is being deleted", "point", point)
	}
	return ctx.Err()
}

// component is the kubelet as flow events name it.
func (w *podWorker) component() string { return "kubelet/" + w.k.cfg.Node.Name }

// pendingPhase reports whether a pod in phase p has not left Pending
// (an empty phase is Pending).
func pendingPhase(p corev1.PodPhase) bool { return p == "" || p == corev1.PodPending }

// podRef is the pod as flow events name it.
func (w *podWorker) podRef() flow.ObjectRef {
	p := w.m.pod
	return flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// objectRef is what an event is about: the pod, or one of its containers
// (fieldPath spec.containers{name}), as the kubelet refers to them.
func (w *podWorker) objectRef(c *container) *corev1.ObjectReference {
	p := w.m.pod
	ref := &corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: p.Namespace, Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion}
	if c != nil {
		if c.init {
			ref.FieldPath = fmt.Sprintf("spec.initContainers{%s}", c.spec.Name)
		} else {
			ref.FieldPath = fmt.Sprintf("spec.containers{%s}", c.spec.Name)
		}
	}
	return ref
}

// record turns a machine's outputs into events and flow events. The
// actions of the pod's first start have stage 6 until the stage-7 status
// patch; any other action has stage 0.
func (w *podWorker) record(now time.Time, out []output) {
	k := w.k
	for _, o := range out {
		if o.reason != "" {
			k.recorder.Event(w.objectRef(o.c), o.eventType, o.reason, o.message)
		}
		if o.action != nil {
			klog.V(2).InfoS("Runtime action", "node", k.cfg.Node.Name, "pod", klog.KObj(w.m.pod), "action", o.action.Action,
				"container", o.action.Container, "duration", o.action.Duration, "result", o.action.Result)
			if k.cfg.Recorder != nil {
				a := *o.action
				stage := flow.Stage(0)
				if o.start && !w.reported {
					stage = flow.StageKubeletNotified
				}
				k.cfg.Recorder.Record(flow.Event{
					Stage: stage, Component: w.component(), Object: w.podRef(),
					Time: now, Summary: o.summary, Runtime: &a,
				})
			}
		}
	}
}

// writeStatus sends s as the kubelet's status manager does: it reads the
// pod from the API server (upstream's syncPod does too, though its pod
// informer has the pod: the patch is made against the stored status, not
// a cached one), keeps the conditions the kubelet does not own, and
// patches pods/<name>/status with a strategic merge patch from the stored
// status (with metadata.uid as a precondition), unless nothing changed.
// It reports whether the status is now stored (or the pod is gone).
//
// The patch that first moves the stored phase off Pending is held at
// PointBeforeStatusReport (once; the pod is read again after the hold)
// and recorded with stage 7; every patch is recorded just before it is
// sent.
func (w *podWorker) writeStatus(ctx context.Context, s corev1.PodStatus) bool {
	k := w.k
	pods := k.cfg.Client.CoreV1().Pods(w.m.pod.Namespace)
	for {
		cur, err := pods.Get(ctx, w.m.pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true
		}
		if err != nil {
			if ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "Failed to get status for pod")
			}
			return false
		}
		if cur.UID != w.uid {
			return true // deleted and created again: not this pod any more
		}
		merged := mergePodStatus(cur.Status, s)
		patch, unchanged, err := podStatusPatch(w.uid, cur.Status, merged)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Cannot make the status patch")
			return true
		}
		if unchanged {
			return true
		}
		leaves := pendingPhase(cur.Status.Phase) && !pendingPhase(merged.Phase)
		if leaves && k.cfg.Gate != nil && !w.marks.Held(flow.PointBeforeStatusReport) {
			if err := w.hold(ctx, flow.PointBeforeStatusReport); err != nil {
				return false
			}
			continue // the pod may have changed while held
		}
		stage := flow.Stage(0)
		if leaves {
			stage = flow.StageStatusReported
			w.reported = true
		}
		if k.cfg.Recorder != nil {
			k.cfg.Recorder.Record(flow.Event{
				Stage: stage, Component: w.component(), Object: w.podRef(),
				Time: k.clock.Now(), Summary: statusSummary(merged),
				Status: &flow.StatusReport{User: k.user, Patch: string(patch), Phase: string(merged.Phase)},
			})
		}
		if _, err := pods.Patch(ctx, cur.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			if apierrors.IsNotFound(err) {
				return true
			}
			if ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "Failed to update status for pod", "patch", string(patch))
			}
			return false
		}
		klog.FromContext(ctx).V(3).Info("Patch status for pod", "patch", string(patch))
		return true
	}
}

// statusSummary says what a status report says, for people.
func statusSummary(s corev1.PodStatus) string {
	ready := "not ready"
	for _, c := range s.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			ready = "ready"
		}
	}
	detail := ""
	for _, cs := range append(append([]corev1.ContainerStatus(nil), s.InitContainerStatuses...), s.ContainerStatuses...) {
		if cs.State.Waiting != nil && cs.State.Waiting.Reason != "" {
			detail = ", " + cs.Name + " " + cs.State.Waiting.Reason
			break
		}
	}
	return fmt.Sprintf("status %s, %s%s", s.Phase, ready, detail)
}

// mergePodStatus keeps the stored conditions the kubelet does not own,
// first, followed by the kubelet's.
func mergePodStatus(stored, s corev1.PodStatus) corev1.PodStatus {
	merged := *s.DeepCopy()
	merged.Conditions = nil
	for _, c := range stored.Conditions {
		if !kubeletConditions[c.Type] {
			merged.Conditions = append(merged.Conditions, c)
		}
	}
	for _, c := range s.Conditions {
		if kubeletConditions[c.Type] {
			merged.Conditions = append(merged.Conditions, c)
		}
	}
	merged.ResourceClaimStatuses = stored.ResourceClaimStatuses
	merged.ExtendedResourceClaimStatus = stored.ExtendedResourceClaimStatus
	merged.NodeAllocatableResourceClaimStatuses = stored.NodeAllocatableResourceClaimStatuses
	return merged
}

// podStatusPatch is the strategic merge patch from the stored status to
// s, with the pod's UID in metadata so that it cannot land on another pod
// of the same name; unchanged when it would change nothing else.
func podStatusPatch(uid types.UID, stored, s corev1.PodStatus) (patch []byte, unchanged bool, err error) {
	oldData, err := json.Marshal(corev1.Pod{Status: stored})
	if err != nil {
		return nil, false, err
	}
	newData, err := json.Marshal(corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}, Status: s})
	if err != nil {
		return nil, false, err
	}
	patch, err = strategicpatch.CreateTwoWayMergePatch(oldData, newData, corev1.Pod{})
	if err != nil {
		return nil, false, err
	}
	return patch, bytes.Equal(patch, []byte(fmt.Sprintf(`{"metadata":{"uid":%q}}`, uid))), nil
}

// deletePod deletes the terminated pod from the API with no grace period
// (the kubelet's last word on a pod being deleted), with its UID as a
// precondition. It reports whether the pod is gone.
func (w *podWorker) deletePod(ctx context.Context) bool {
	if w.deleted {
		return true
	}
	p := w.m.pod
	zero := int64(0)
	err := w.k.cfg.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: metav1.NewUIDPreconditions(string(w.uid)),
	})
	switch {
	case err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		klog.FromContext(ctx).V(2).Info("Pod fully terminated and removed from etcd")
		w.deleted = true
		return true
	case ctx.Err() == nil:
		klog.FromContext(ctx).Error(err, "Failed to delete pod")
	}
	return false
}

// eventSink writes events through the client, with the kubelet's context,
// and lets Run wait for a write under way before it returns.
type eventSink struct {
	ctx    context.Context
	events typedcorev1.EventInterface
	mu     sync.RWMutex // held for reading during a write
	closed bool
}

func newEventSink(ctx context.Context, events typedcorev1.EventInterface) *eventSink {
	return &eventSink{ctx: ctx, events: events}
}

var errSinkClosed = errors.New("kubelet: stopped")

func (s *eventSink) do(f func() (*corev1.Event, error)) (*corev1.Event, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errSinkClosed
	}
	return f()
}

func (s *eventSink) Create(e *corev1.Event) (*corev1.Event, error) {
	return s.do(func() (*corev1.Event, error) { return s.events.CreateWithEventNamespaceWithContext(s.ctx, e) })
}

func (s *eventSink) Update(e *corev1.Event) (*corev1.Event, error) {
	return s.do(func() (*corev1.Event, error) { return s.events.UpdateWithEventNamespaceWithContext(s.ctx, e) })
}

func (s *eventSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	return s.do(func() (*corev1.Event, error) { return s.events.PatchWithEventNamespaceWithContext(s.ctx, e, data) })
}

// close waits for a write under way and refuses the ones after.
func (s *eventSink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
