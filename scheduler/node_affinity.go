package scheduler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// NodeAffinityName is the name of the NodeAffinity plugin.
const NodeAffinityName = "NodeAffinity"

// ErrReasonNodeAffinity is NodeAffinity's reason for rejecting a node.
const ErrReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

// NodeAffinity keeps a pod on the nodes its spec.nodeSelector and its
// required node affinity select (filter), and prefers the nodes its
// preferred node-affinity terms select, by the terms' weights (score).
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

// PreFilter parses the pod's node selector and required terms once; it
// skips the filter for a pod that has neither.
func (*NodeAffinity) PreFilter(_ context.Context, state *CycleState, pod *corev1.Pod) *Status {
	req := newRequiredNodeAffinity(pod)
	if req == nil {
		return NewStatus(Skip)
	}
	state.Write(nodeAffinityFilterKey, req)
	return nil
}

// Filter rejects a node that the node selector or the required terms do
// not select.
func (*NodeAffinity) Filter(_ context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	var req *requiredNodeAffinity
	if v, ok := state.Read(nodeAffinityFilterKey); ok {
		req = v.(*requiredNodeAffinity)
	} else {
		req = newRequiredNodeAffinity(pod)
	}
	if req.match(nodeInfo.Node()) {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, ErrReasonNodeAffinity)
}

// PreScore parses the preferred terms; it skips scoring for a pod without
// any.
func (*NodeAffinity) PreScore(_ context.Context, state *CycleState, pod *corev1.Pod, _ []*NodeInfo) *Status {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return NewStatus(Skip)
	}
	state.Write(nodeAffinityScoreKey, newPreferredTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution))
	return nil
}

// Score adds up the weights of the preferred terms the node matches.
func (*NodeAffinity) Score(_ context.Context, state *CycleState, _ *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status) {
	v, ok := state.Read(nodeAffinityScoreKey)
	if !ok {
		return 0, AsStatus(fmt.Errorf("%s: PreScore did not run", NodeAffinityName))
	}
	var sum int64
	for _, t := range v.([]preferredTerm) {
		if t.term.match(nodeInfo.Node()) {
			sum += int64(t.weight)
		}
	}
	return sum, nil
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

// requiredNodeAffinity is a pod's node selector and required node
// affinity, parsed: a node must match both.
type requiredNodeAffinity struct {
	selector labels.Selector // nil: no node selector
	terms    []nodeSelectorTerm
	hasTerms bool // required affinity present (then a node must match one term)
}

// newRequiredNodeAffinity returns nil when the pod constrains nothing.
func newRequiredNodeAffinity(pod *corev1.Pod) *requiredNodeAffinity {
	r := &requiredNodeAffinity{}
	if pod.Spec.NodeSelector != nil {
		r.selector = labels.SelectorFromSet(pod.Spec.NodeSelector)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.hasTerms = true
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			r.terms = append(r.terms, newNodeSelectorTerm(t))
		}
	}
	if r.selector == nil && !r.hasTerms {
		return nil
	}
	return r
}

func (r *requiredNodeAffinity) match(node *corev1.Node) bool {
	if r == nil {
		return true
	}
	if r.selector != nil && !r.selector.Matches(labels.Set(node.Labels)) {
		return false
	}
	if !r.hasTerms {
		return true
	}
	// The terms are ORed.
	for _, t := range r.terms {
		if t.match(node) {
			return true
		}
	}
	return false
}

// nodeSelectorTerm is one parsed term: its label expressions and its field
// expressions (only metadata.name exists) must all match. A term without
// expressions, or one that does not parse, matches no node.
type nodeSelectorTerm struct {
	labels labels.Selector
	fields fields.Selector
	err    error
}

func newNodeSelectorTerm(t corev1.NodeSelectorTerm) nodeSelectorTerm {
	var out nodeSelectorTerm
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		out.err = errors.New("empty term")
		return out
	}
	if len(t.MatchExpressions) != 0 {
		out.labels, out.err = labelSelector(t.MatchExpressions)
		if out.err != nil {
			return out
		}
	}
	if len(t.MatchFields) != 0 {
		out.fields, out.err = fieldSelector(t.MatchFields)
	}
	return out
}

func (t nodeSelectorTerm) match(node *corev1.Node) bool {
	if t.err != nil {
		return false
	}
	if t.labels != nil && !t.labels.Matches(labels.Set(node.Labels)) {
		return false
	}
	if t.fields != nil && !t.fields.Matches(fields.Set{"metadata.name": node.Name}) {
		return false
	}
	return true
}

// labelSelector turns match expressions into a label selector (Gt and Lt
// compare integers).
func labelSelector(exprs []corev1.NodeSelectorRequirement) (labels.Selector, error) {
	sel := labels.NewSelector()
	for _, e := range exprs {
		var op selection.Operator
		switch e.Operator {
		case corev1.NodeSelectorOpIn:
			op = selection.In
		case corev1.NodeSelectorOpNotIn:
			op = selection.NotIn
		case corev1.NodeSelectorOpExists:
			op = selection.Exists
		case corev1.NodeSelectorOpDoesNotExist:
			op = selection.DoesNotExist
		case corev1.NodeSelectorOpGt:
			op = selection.GreaterThan
		case corev1.NodeSelectorOpLt:
			op = selection.LessThan
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
		r, err := labels.NewRequirement(e.Key, op, e.Values)
		if err != nil {
			return nil, err
		}
		sel = sel.Add(*r)
	}
	return sel, nil
}

// fieldSelector turns match fields into a field selector: In or NotIn,
// with exactly one value each.
func fieldSelector(exprs []corev1.NodeSelectorRequirement) (fields.Selector, error) {
	var sels []fields.Selector
	for _, e := range exprs {
		if len(e.Values) != 1 {
			return nil, fmt.Errorf("matchFields %q: must have one value", e.Key)
		}
		switch e.Operator {
		case corev1.NodeSelectorOpIn:
			sels = append(sels, fields.OneTermEqualSelector(e.Key, e.Values[0]))
		case corev1.NodeSelectorOpNotIn:
			sels = append(sels, fields.OneTermNotEqualSelector(e.Key, e.Values[0]))
		default:
			return nil, fmt.Errorf("matchFields %q: operator %q not supported", e.Key, e.Operator)
		}
	}
	return fields.AndSelectors(sels...), nil
}

// preferredTerm is a parsed preferred scheduling term.
type preferredTerm struct {
	term   nodeSelectorTerm
	weight int32
}

// newPreferredTerms parses the terms, dropping those with weight 0.
func newPreferredTerms(terms []corev1.PreferredSchedulingTerm) []preferredTerm {
	var out []preferredTerm
	for _, t := range terms {
		if t.Weight == 0 {
			continue
		}
		out = append(out, preferredTerm{term: newNodeSelectorTerm(t.Preference), weight: t.Weight})
	}
	return out
}
