package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubesim/kubesim/internal/flow"
)

// attempt is one scheduling attempt: what was found and decided.
type attempt struct {
	pod    *corev1.Pod
	number int // the pod's attempt count, from 1
	// numNodes is how many nodes the snapshot had.
	numNodes int
	// host is the chosen node; err why there is none.
	host string
	err  error
	// rejectors are the plugins that rejected the pod somewhere.
	rejectors []string
	// preemption is what DefaultPreemption decided when no node fits.
	preemption *preemption
	// decision is the flow evidence, built while the snapshot is at hand
	// (nil when nobody records).
	decision *flow.SchedulingDecision
	// start is when the attempt began (metrics.go).
	start time.Time
}

// scheduleOne runs one attempt for a popped pod: filter and score against
// a fresh snapshot, then assume the pod on the chosen node and bind it in
// the background, or report why it fits nowhere and put it back.
//
// With a gate, the pod's first attempt waits at PointBeforeScheduling
// before anything (the loop waits with it), and its first binding at
// PointBeforeBinding (in the binding's goroutine). The first attempt that
// finds a node is recorded with stage 4 before that hold.
func (s *Scheduler) scheduleOne(ctx context.Context, qp *queuedPod) {
	pod := qp.pod
	if pod.DeletionTimestamp != nil || s.cache.HasPod(pod.UID) {
		// Being deleted, or already placed (it was updated while its
		// binding was under way).
		s.queue.Done(pod.UID)
		return
	}
	if !s.waitBeforeScheduling(ctx, qp) {
		return
	}
	pod = qp.pod
	start := attemptStarted()
	s.cache.UpdateSnapshot(s.snap)
	a := s.schedulePod(ctx, pod)
	observeAlgorithm(start)
	a.number, a.start = qp.attempts, start
	if a.err != nil {
		s.failInLoop(ctx, qp, a)
		return
	}
	// Count the pod on its node now, so that the next attempt sees the
	// room taken, whatever the binding's progress.
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = a.host
	if err := s.cache.AssumePod(assumed); err != nil {
		a.err, a.host = err, ""
		s.failInLoop(ctx, qp, a)
		return
	}
	// The decision is recorded before the binding (and its hold): stage 4
	// for the first recorded attempt of the pod that found a node. Without
	// readers there is nothing to record, nor to remember about the pod.
	if a.decision != nil {
		s.record(a, s.stages.stage(pod.UID), pod.Name+" → "+a.host)
	}
	gate := s.stages.gate
	if gate == nil || !s.stages.first(pod.UID, flow.PointBeforeBinding) || gate.Mode() == flow.ModeOff {
		if !s.goAPI(ctx, func() { s.bind(ctx, qp, a, assumed) }) {
			s.bindDone(ctx, qp, a, assumed, ctx.Err()) // stopping
		}
		return
	}
	// The hold before binding waits in a goroutine of its own, outside the
	// bound on API calls: a held pod neither stops the loop nor takes the
	// place of another pod's binding.
	s.apiWG.Go(func() {
		if err := s.holdAt(ctx, flow.PointBeforeBinding, pod); err != nil {
			s.bindDone(ctx, qp, a, assumed, err)
			return
		}
		if !s.acquireAPI(ctx) {
			s.bindDone(ctx, qp, a, assumed, ctx.Err())
			return
		}
		defer s.releaseAPI()
		s.bind(ctx, qp, a, assumed)
	})
}

// waitBeforeScheduling holds a pod popped for its first attempt at
// PointBeforeScheduling (a pod that some scheduler has tried before, by
// its PodScheduled condition, is not held). It reports whether the
// attempt goes on, with the pod's current version in qp: not when the
// scheduler is stopping or the pod went away while held.
func (s *Scheduler) waitBeforeScheduling(ctx context.Context, qp *queuedPod) bool {
	pod := qp.pod
	if s.stages.gate == nil || triedBefore(pod) || !s.stages.first(pod.UID, flow.PointBeforeScheduling) {
		return true
	}
	if err := s.holdAt(ctx, flow.PointBeforeScheduling, pod); err != nil {
		klog.FromContext(ctx).V(2).Info("Not scheduling the pod held before scheduling", "pod", klog.KObj(pod), "reason", err)
		s.queue.Done(pod.UID)
		return false
	}
	// The pod may have changed while it was held.
	cur, ok := s.pending(pod)
	if !ok {
		s.queue.Done(pod.UID)
		return false
	}
	qp.pod = cur
	return true
}

// holdAt waits at point with pod (podStages.hold) once the pod's marks
// are made, unless the pod is no longer waiting for a node (deleted, or
// bound elsewhere): then its marks are dropped and holdAt returns
// errPodGone at once. The informer updates its lister before it calls
// the handler that forgets the pod, so a pod that goes away before this
// check is seen gone by it, and one that goes away after it ends the hold.
func (s *Scheduler) holdAt(ctx context.Context, point flow.Point, pod *corev1.Pod) error {
	if _, ok := s.pending(pod); !ok {
		s.stages.forget(pod.UID)
		return errPodGone
	}
	return s.stages.hold(ctx, point, pod)
}

// pending returns the current version of pod if it still waits for a
// node: not deleted or being deleted, not bound, not replaced by a pod of
// the same name. Without informers (tests) the pod is taken as it is.
func (s *Scheduler) pending(pod *corev1.Pod) (*corev1.Pod, bool) {
	if s.podLister == nil {
		return pod, true
	}
	cur, err := s.podLister.Pods(pod.Namespace).Get(pod.Name)
	if err != nil || cur.UID != pod.UID || cur.DeletionTimestamp != nil || cur.Spec.NodeName != "" {
		return nil, false
	}
	return cur, true
}

// schedulePod finds the node for pod: PreFilter, Filter over the nodes
// until enough feasible ones are found, then (with more than one) Score
// and the best total. The flow evidence is built only when someone reads
// the recorder's events (flow.Recorder.HasReaders): a recorder without
// readers costs one check per attempt.
func (s *Scheduler) schedulePod(ctx context.Context, pod *corev1.Pod) *attempt {
	nodes := s.snap.nodes
	a := &attempt{pod: pod, numNodes: len(nodes)}
	var d *flow.SchedulingDecision
	if s.recorder.enabled() {
		d = &flow.SchedulingDecision{Nodes: []flow.NodeVerdict{}}
		a.decision = d
	}
	if len(nodes) == 0 {
		a.err = ErrNoNodesAvailable
		return a
	}
	state := &s.buf.state
	state.reset()
	skip, st := s.fwk.runPreFilter(ctx, state, pod)
	if !st.IsSuccess() {
		s.preFilterFailed(ctx, a, state, skip, st)
		return a
	}
	search, err := s.findFeasible(ctx, state, skip, pod, nodes)
	if err != nil {
		a.err = err
		return a
	}
	var scores []pluginScores
	var active []bool
	switch feasible := search.feasible; {
	case len(feasible) == 0:
		a.rejectors = rejectingPlugins(search.statuses)
		fe := &FitError{Pod: pod, NumAllNodes: len(nodes), NodeStatuses: search.statuses}
		a.preemption = s.postFilter(ctx, state, skip, pod, nodes, search.statuses)
		fe.PostFilterMsg = a.preemption.msg
		a.err = fe
	case len(feasible) == 1:
		// Nothing to compare: kube-scheduler does not score a single node.
		a.host = feasible[0].Name()
	default:
		var st *Status
		scores, active, st = s.fwk.runScore(ctx, state, pod, feasible, s.parallel, &s.buf.score)
		if !st.IsSuccess() {
			a.err = st.AsError()
			return a
		}
		var tied []string
		a.host, tied = s.selectHost(scores)
		if d != nil && len(tied) > 1 {
			d.Tied = slices.Clone(tied)
		}
	}
	if d != nil {
		s.fillVerdicts(d, nodes, search, scores, active)
		d.Preemption = a.preemption.evidence()
	}
	return a
}

// preFilterFailed settles an attempt whose PreFilter rejected the pod (or
// failed): no node is looked at, every node gets the rejection.
func (s *Scheduler) preFilterFailed(ctx context.Context, a *attempt, state *CycleState, skip skipSet, st *Status) {
	if !st.IsRejected() {
		a.err = st.AsError()
		return
	}
	pod, nodes := a.pod, s.snap.nodes
	a.rejectors = []string{st.Plugin()}
	fe := &FitError{Pod: pod, NumAllNodes: len(nodes), AbsentStatus: st, PreFilterMsg: st.Message()}
	a.preemption = s.postFilter(ctx, state, skip, pod, nodes, nil)
	fe.PostFilterMsg = a.preemption.msg
	a.err = fe
	if d := a.decision; d != nil {
		d.Nodes = make([]flow.NodeVerdict, 0, len(nodes))
		for _, n := range nodes {
			d.Nodes = append(d.Nodes, flow.NodeVerdict{Node: n.Name(), FailedPlugin: st.Plugin(), Reasons: st.Reasons()})
		}
	}
}

// rejectingPlugins returns the plugins that rejected a node, sorted.
func rejectingPlugins(statuses map[string]*Status) []string {
	var out []string
	for _, st := range statuses {
		if p := st.Plugin(); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// selectHost returns the node with the highest total, asking the
// TieBreaker when several share it (kube-scheduler picks one of them at
// random), and the nodes that shared it, by name (in the scheduler's
// buffer: valid until the next attempt).
func (s *Scheduler) selectHost(scores []pluginScores) (string, []string) {
	best := s.buf.best[:0]
	top := int64(-1)
	for _, ns := range scores {
		switch {
		case ns.total > top:
			top, best = ns.total, append(best[:0], ns.node)
		case ns.total == top:
			best = append(best, ns.node)
		}
	}
	s.buf.best = best
	if len(best) == 1 {
		return best[0], best
	}
	sortSearchOrder(best)
	return s.tieBreak(best), best
}

// sortSearchOrder sorts names that are in the order a search for feasible
// nodes looked at them: the node list is sorted, so they are sorted but
// for the wrap from the last node to the first, and a rotation sorts them.
func sortSearchOrder(names []string) {
	for k := 1; k < len(names); k++ {
		if names[k] >= names[k-1] {
			continue
		}
		if !slices.IsSorted(names[k:]) || names[len(names)-1] > names[0] {
			slices.Sort(names) // not a search order after all
			return
		}
		slices.Reverse(names[:k])
		slices.Reverse(names[k:])
		slices.Reverse(names)
		return
	}
}

// bind runs the PreBind plugins (VolumeBinding's wait for the pod's
// volumes), writes the binding and settles the attempt (bindDone).
func (s *Scheduler) bind(ctx context.Context, qp *queuedPod, a *attempt, assumed *corev1.Pod) {
	err := s.fwk.runPreBind(ctx, assumed, a.host)
	if err == nil {
		err = s.binder.Bind(ctx, assumed, a.host)
	}
	s.bindDone(ctx, qp, a, assumed, err)
}

// bindDone settles an attempt after its binding, which failed with err
// (or was not sent: the hold before it ended with err). On success the
// pod leaves the queue and the Scheduled event is written. On failure the
// assumption is dropped (which frees room, so pods waiting for room are
// moved). A 409 Conflict means the pod was bound by someone else or is
// being deleted, errPodGone that it went away while held: the scheduler
// lets it go. Any other error puts the pod back with backoff (unless it
// is gone). Each failure is recorded again, with stage 0.
func (s *Scheduler) bindDone(ctx context.Context, qp *queuedPod, a *attempt, assumed *corev1.Pod, err error) {
	logger := klog.FromContext(ctx)
	pod := a.pod
	if err == nil {
		logger.V(2).Info("Successfully bound pod to node", "pod", klog.KObj(pod), "node", a.host, "attempt", a.number)
		s.eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, a.host)
		s.observeScheduled(a, a.number)
		s.queue.Done(pod.UID)
		return
	}
	if ferr := s.cache.ForgetPod(assumed); ferr != nil {
		logger.Error(ferr, "Forgetting the assumed pod failed", "pod", klog.KObj(pod))
	}
	s.queue.Move(ClusterEvent{Resource: AssignedPod, ActionType: ActionDelete}, func(p *corev1.Pod) bool { return p.UID == pod.UID })
	if ctx.Err() != nil {
		// Shutting down.
		s.queue.Done(pod.UID)
		return
	}
	host := a.host
	a.host = ""
	switch {
	case apierrors.IsConflict(err):
		logger.V(2).Info("Binding rejected with a conflict; leaving the pod alone", "pod", klog.KObj(pod), "node", host, "err", err)
		s.abandonAttempt(qp, a, err, fmt.Sprintf("%s: binding to %s rejected", pod.Name, host))
		return
	case errors.Is(err, errPodGone):
		logger.V(2).Info("Binding given up; the pod went away while held", "pod", klog.KObj(pod), "node", host)
		s.abandonAttempt(qp, a, err, fmt.Sprintf("%s: binding to %s given up", pod.Name, host))
		return
	}
	a.err = fmt.Errorf("binding pod to node %s: %w", host, err)
	// The report is made here, on the binding's goroutine, which may hold
	// one of the places of goAPI: asking for another could wait for ever
	// (every place held by a binding that failed and waits in turn).
	if report := s.handleFailure(ctx, qp, a); report != nil {
		report()
	}
}

// abandonAttempt ends an attempt whose pod is no longer the scheduler's to place,
// recording why (stage 0).
func (s *Scheduler) abandonAttempt(qp *queuedPod, a *attempt, err error, summary string) {
	if a.decision != nil {
		a.decision.Message = err.Error()
	}
	s.record(a, 0, summary)
	s.queue.Done(qp.pod.UID)
	s.stages.forget(qp.pod.UID)
}

// failInLoop settles, in the scheduling loop, an attempt that found no
// node: handleFailure, then the report on a goroutine of goAPI (the loop
// holds no place, so it may wait for one).
func (s *Scheduler) failInLoop(ctx context.Context, qp *queuedPod, a *attempt) {
	s.preemptInLoop(ctx, a)
	if report := s.handleFailure(ctx, qp, a); report != nil {
		s.goAPI(ctx, report)
	}
}

// handleFailure records an attempt that placed nothing and puts the pod
// back in the queue (unless it is gone or bound meanwhile). It returns the
// report to send, or nil when there is none (the pod is gone, or the
// scheduler stops): the caller sends it from where it may make API calls
// (failInLoop, bindDone). The report, as kube-scheduler's: a
// FailedScheduling Warning event with the message, and the condition
// PodScheduled=False (reason Unschedulable when no node fits,
// SchedulerError on an error) patched into the pod's status.
func (s *Scheduler) handleFailure(ctx context.Context, qp *queuedPod, a *attempt) (report func()) {
	logger := klog.FromContext(ctx)
	pod := a.pod
	msg := a.err.Error()
	var fe *FitError
	reason := corev1.PodReasonSchedulerError
	summary := fmt.Sprintf("%s: %s", pod.Name, msg)
	if errors.As(a.err, &fe) || errors.Is(a.err, ErrNoNodesAvailable) {
		reason = corev1.PodReasonUnschedulable
		summary = fmt.Sprintf("%s: 0/%d nodes available", pod.Name, a.numNodes)
		logger.V(2).Info("Unable to schedule pod; no fit; waiting", "pod", klog.KObj(pod), "err", msg)
	} else {
		logger.Error(a.err, "Error scheduling pod; retrying", "pod", klog.KObj(pod))
	}
	if a.decision != nil {
		a.decision.Message = msg
	}
	s.observeFailed(a, reason)
	s.record(a, 0, summary)

	// Retry with the current object; a pod deleted or bound since is not
	// retried nor reported.
	cur := pod
	if s.podLister != nil {
		cur = nil
		if p, err := s.podLister.Pods(pod.Namespace).Get(pod.Name); err == nil && p.UID == pod.UID && p.Spec.NodeName == "" {
			cur = p
		}
	}
	s.queue.Requeue(qp, cur, a.rejectors, len(a.rejectors) == 0)
	if cur == nil {
		// Gone: drop what the attempt may have noted about it after the
		// informer forgot it.
		s.stages.forget(pod.UID)
	}
	if cur == nil || s.client == nil || ctx.Err() != nil {
		return nil
	}
	nominated, override := a.preemption.nominatedNode()
	return func() { s.reportFailure(ctx, cur, reason, msg, nominated, override) }
}

// reportFailure writes the FailedScheduling event and the PodScheduled
// condition, and, with override, sets status.nominatedNodeName to
// nominated (the node a preemption made room on; "" clears it).
func (s *Scheduler) reportFailure(ctx context.Context, pod *corev1.Pod, reason, msg, nominated string, override bool) {
	s.eventf(pod, corev1.EventTypeWarning, "FailedScheduling", "%s", truncateMessage(msg))
	status := pod.Status.DeepCopy()
	changed := setPodCondition(status, corev1.PodCondition{
		Type:               corev1.PodScheduled,
		Status:             corev1.ConditionFalse,
		ObservedGeneration: pod.Generation,
		Reason:             reason,
		Message:            msg,
		LastTransitionTime: metav1.NewTime(s.now()),
	})
	if override && status.NominatedNodeName != nominated {
		status.NominatedNodeName, changed = nominated, true
	}
	if !changed {
		return
	}
	if err := patchPodStatus(ctx, s.client, pod, status); err != nil && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "Updating the pod's PodScheduled condition failed", "pod", klog.KObj(pod))
	}
}

// eventf writes a core/v1 Event about pod (once Run has started the
// broadcaster).
func (s *Scheduler) eventf(pod *corev1.Pod, eventType, reason, format string, args ...any) {
	if s.events != nil {
		s.events.Eventf(pod, eventType, reason, format, args...)
	}
}

// fillVerdicts writes one verdict per node the search looked at, in name
// order: the rejecting plugin and its reasons, or the scores (nil when
// there was nothing to compare). All the verdicts' scores share one
// array.
func (s *Scheduler) fillVerdicts(d *flow.SchedulingDecision, nodes []*NodeInfo, search feasibleSearch, scores []pluginScores, active []bool) {
	d.Nodes = make([]flow.NodeVerdict, 0, search.tried)
	var flat []flow.PluginScore
	if scores != nil {
		flat = make([]flow.PluginScore, 0, len(scores)*len(s.fwk.score))
	}
	wrapped, next := 0, 0 // verdicts of nodes before start; next feasible node's scores
	for k, i := 0, search.start; k < search.tried; k, i = k+1, wrap(i+1, len(nodes)) {
		if i < search.start {
			wrapped++
		}
		name := nodes[i].Name()
		if st := search.verdicts[k]; st != nil {
			d.Nodes = append(d.Nodes, flow.NodeVerdict{Node: name, FailedPlugin: st.Plugin(), Reasons: st.Reasons()})
			continue
		}
		v := flow.NodeVerdict{Node: name, Feasible: true}
		if scores != nil {
			ps := &scores[next]
			from := len(flat)
			for j, wp := range s.fwk.score {
				if active[j] {
					flat = append(flat, flow.PluginScore{Plugin: wp.Plugin.Name(), Score: ps.scores[j], Weight: wp.Weight})
				}
			}
			if len(flat) > from {
				v.Scores = flat[from:len(flat):len(flat)]
			}
			v.Total = ps.total
		}
		next++
		d.Nodes = append(d.Nodes, v)
	}
	// The search went from start to the end of the list and on from its
	// beginning: the wrapped verdicts come first by name.
	tail := len(d.Nodes) - wrapped
	slices.Reverse(d.Nodes[:tail])
	slices.Reverse(d.Nodes[tail:])
	slices.Reverse(d.Nodes)
}

// record sends the attempt's flow event with stage (StageScheduled or
// 0). The event gets a copy of the decision: the attempt may go on to
// fail and be recorded again (with the same verdicts, which it shares).
func (s *Scheduler) record(a *attempt, stage flow.Stage, summary string) {
	if a.decision == nil {
		return
	}
	a.decision.Attempt = a.number
	a.decision.Chosen = a.host
	// Nodes is not changed after the attempt; the rest may be.
	d := *a.decision
	s.recorder.record(flow.Event{
		Stage:      stage,
		Component:  "scheduler",
		Instance:   s.identity,
		Object:     podRef(a.pod),
		Time:       s.now(),
		Summary:    summary,
		Scheduling: &d,
	})
}

// flowRecorder wraps a possibly nil *flow.Recorder.
type flowRecorder struct{ r *flow.Recorder }

// enabled reports whether an attempt's evidence would reach anyone.
func (f flowRecorder) enabled() bool       { return f.r.HasReaders() }
func (f flowRecorder) record(e flow.Event) { f.r.Record(e) }
