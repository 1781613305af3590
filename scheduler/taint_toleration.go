package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// TaintTolerationName is the name of the TaintToleration plugin.
const TaintTolerationName = "TaintToleration"

// ErrReasonUntoleratedTaint is TaintToleration's reason for rejecting a
// node. kube-scheduler v1.37 says "taint(s)" without naming the taint
// (older releases printed "node(s) had untolerated taint {key: value}"),
// so that nodes with different taints add up to one count in the
// FailedScheduling message; the scheduler's log names the taint.
const ErrReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// tolerateAllCompareOps is whether tolerations may use the Gt and Lt
// operators: the TaintTolerationComparisonOperators feature, alpha and off
// in v1.37.
const tolerateAllCompareOps = false

// TaintToleration keeps pods off nodes with NoSchedule and NoExecute
// taints they do not tolerate (filter), and prefers nodes with fewer
// PreferNoSchedule taints they do not tolerate (score). Whether a
// toleration matches a taint is k8s.io/component-helpers' answer, which
// kube-scheduler's plugin asks too; the reason a learner reads,
// ErrReasonUntoleratedTaint, is this file's.
type TaintToleration struct{}

var (
	_ FilterPlugin      = (*TaintToleration)(nil)
	_ PreScorePlugin    = (*TaintToleration)(nil)
	_ ScorePlugin       = (*TaintToleration)(nil)
	_ EnqueueExtensions = (*TaintToleration)(nil)
)

// Name returns TaintTolerationName.
func (*TaintToleration) Name() string { return TaintTolerationName }

// Filter rejects a node with a NoSchedule or NoExecute taint that none of
// the pod's tolerations matches (component-helpers'
// FindMatchingUntoleratedTaint, as kube-scheduler's plugin).
func (*TaintToleration) Filter(ctx context.Context, _ *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	taints := nodeInfo.Node().Spec.Taints
	if len(taints) == 0 {
		return nil // most nodes: no need for the logger
	}
	logger := klog.FromContext(ctx)
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, taints, pod.Spec.Tolerations,
		doNotScheduleTaints, tolerateAllCompareOps)
	if !untolerated {
		return nil
	}
	logger.V(4).Info("Node has a taint the pod does not tolerate", "pod", klog.KObj(pod), "node", nodeInfo.Name(), "taint", taint.ToString())
	return NewStatus(UnschedulableAndUnresolvable, ErrReasonUntoleratedTaint)
}

// doNotScheduleTaints selects the taints the filter looks at: NoSchedule
// and NoExecute (upstream's DoNotScheduleTaintsFilterFunc).
func doNotScheduleTaints(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// tolerates reports whether any of the tolerations matches the taint
// (same key or an empty key with Exists, same value or Exists, same effect
// or an empty effect): component-helpers' TolerationsTolerateTaint, with
// the comparison operators off as in v1.37.
func tolerates(logger klog.Logger, tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	return corev1helpers.TolerationsTolerateTaint(logger, tolerations, taint, tolerateAllCompareOps)
}

const taintTolerationStateKey = "PreScore" + TaintTolerationName

// PreScore keeps the tolerations that can match a PreferNoSchedule taint
// (effect PreferNoSchedule or empty).
func (*TaintToleration) PreScore(_ context.Context, state *CycleState, pod *corev1.Pod, _ []*NodeInfo) *Status {
	var prefer []corev1.Toleration
	for _, t := range pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			prefer = append(prefer, t)
		}
	}
	state.Write(taintTolerationStateKey, prefer)
	return nil
}

// Score counts the node's PreferNoSchedule taints the pod does not
// tolerate; NormalizeScore turns the count around (fewer is better).
func (*TaintToleration) Score(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status) {
	v, ok := state.Read(taintTolerationStateKey)
	if !ok {
		return 0, AsStatus(fmt.Errorf("%s: PreScore did not run", TaintTolerationName))
	}
	tolerations := v.([]corev1.Toleration)
	taints := nodeInfo.Node().Spec.Taints
	if len(taints) == 0 {
		return 0, nil
	}
	logger := klog.FromContext(ctx)
	var count int64
	for i := range taints {
		t := &taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule && !tolerates(logger, tolerations, t) {
			count++
		}
	}
	return count, nil
}

// NormalizeScore gives MaxNodeScore to the nodes with the fewest
// intolerable taints and 0 to those with the most (all MaxNodeScore when
// no node has any).
func (*TaintToleration) NormalizeScore(_ context.Context, _ *CycleState, _ *corev1.Pod, scores []NodeScore) *Status {
	defaultNormalizeScore(MaxNodeScore, true, scores)
	return nil
}

// EventsToRegister: a new node, or a node whose taints changed.
func (*TaintToleration) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{{Resource: NodeResource, ActionType: ActionAdd | ActionUpdateNodeTaint}}
}

// defaultNormalizeScore scales scores from [0, highest] to [0, maxScore];
// with reverse, a high raw score becomes a low one. When every raw score
// is 0, all become 0 (or maxScore with reverse).
func defaultNormalizeScore(maxScore int64, reverse bool, scores []NodeScore) {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s.Score)
	}
	if highest == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxScore
			}
		}
		return
	}
	for i := range scores {
		s := maxScore * scores[i].Score / highest
		if reverse {
			s = maxScore - s
		}
		scores[i].Score = s
	}
}
