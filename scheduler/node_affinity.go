package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// NodeAffinityName is the name of the NodeAffinity plugin.
const NodeAffinityName = "NodeAffinity"

// ErrReasonNodeAffinity is NodeAffinity's reason for rejecting a node.
const ErrReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// NodeAffinity keeps a pod on the nodes its spec.nodeSelector and its
// required node affinity select (filter), and prefers the nodes its
// preferred node-affinity terms select, by the terms' weights (score).
// The matching is k8s.io/component-helpers' nodeaffinity, which
// kube-scheduler's plugin calls; what the learner reads (the reason
// ErrReasonNodeAffinity, a Skip for a pod that asks nothing) is this
// file's. Unlike upstream's PreFilter it does not narrow the nodes to
// those a metadata.name matchFields term names: kubesim's framework has
// no PreFilterResult, so Filter rejects the others one by one.
type NodeAffinity struct{}

var (
	_ PreFilterPlugin   = (*NodeAffinity)(nil)
	_ FilterPlugin      = (*NodeAffinity)(nil)
	_ PreScorePlugin    = (*NodeAffinity)(nil)
	_ ScorePlugin       = (*NodeAffinity)(nil)
	_ EnqueueExtensions = (*NodeAffinity)(nil)
)

// Name returns NodeAffinityName.
func (*NodeAffinity) Name() string { return NodeAffinityName }

const (
	nodeAffinityFilterKey = "PreFilter" + NodeAffinityName
	nodeAffinityScoreKey  = "PreScore" + NodeAffinityName
)

// PreFilter parses the pod's node selector and required terms once,
// with component-helpers' nodeaffinity as kube-scheduler does; it skips
// the filter for a pod that has neither.
func (*NodeAffinity) PreFilter(_ context.Context, state *CycleState, pod *corev1.Pod) *Status {
	a := pod.Spec.Affinity
	if pod.Spec.NodeSelector == nil && (a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil) {
		return NewStatus(Skip)
	}
	state.Write(nodeAffinityFilterKey, nodeaffinity.GetRequiredNodeAffinity(pod))
	return nil
}

// Filter rejects a node that the node selector or the required terms do
// not select. A term that does not parse selects no node; as upstream,
// the parse error itself is not the reason. (kube-apiserver's validation
// keeps such terms out; kubesim's does not check affinity, so a pod may
// carry one.)
func (*NodeAffinity) Filter(_ context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	var req nodeaffinity.RequiredNodeAffinity
	if v, ok := state.Read(nodeAffinityFilterKey); ok {
		req = v.(nodeaffinity.RequiredNodeAffinity)
	} else {
		req = nodeaffinity.GetRequiredNodeAffinity(pod)
	}
	if match, _ := req.Match(nodeInfo.Node()); match {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, ErrReasonNodeAffinity)
}

// PreScore parses the preferred terms; it skips scoring for a pod without
// any, and fails the attempt with the parse error, as upstream's does, on
// a term that does not parse.
func (*NodeAffinity) PreScore(_ context.Context, state *CycleState, pod *corev1.Pod, _ []*NodeInfo) *Status {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return NewStatus(Skip)
	}
	terms, err := nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	if err != nil {
		return AsStatus(err)
	}
	state.Write(nodeAffinityScoreKey, terms)
	return nil
}

// Score adds up the weights of the preferred terms the node matches.
func (*NodeAffinity) Score(_ context.Context, state *CycleState, _ *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status) {
	v, ok := state.Read(nodeAffinityScoreKey)
	if !ok {
		return 0, AsStatus(fmt.Errorf("%s: PreScore did not run", NodeAffinityName))
	}
	return v.(*nodeaffinity.PreferredSchedulingTerms).Score(nodeInfo.Node()), nil
}

// NormalizeScore scales the sums so that the best node gets MaxNodeScore.
func (*NodeAffinity) NormalizeScore(_ context.Context, _ *CycleState, _ *corev1.Pod, scores []NodeScore) *Status {
	defaultNormalizeScore(MaxNodeScore, false, scores)
	return nil
}

// EventsToRegister: a new node, or a node whose labels changed.
func (*NodeAffinity) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{{Resource: NodeResource, ActionType: ActionAdd | ActionUpdateNodeLabel}}
}
