package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// NodeResourcesFitName is the name of the NodeResourcesFit plugin.
const NodeResourcesFitName = "NodeResourcesFit"

// NodeResourcesFit's reasons for rejecting a node.
const (
	ErrReasonTooManyPods        = "Too many pods"
	ErrReasonInsufficientCPU    = "Insufficient cpu"
	ErrReasonInsufficientMemory = "Insufficient memory"
)

// NodeResourcesFit keeps a pod off nodes without room for its requests
// (filter): the node's allocatable cpu, memory and pod count, minus what
// the pods already there request. It scores with the LeastAllocated
// strategy, kube-scheduler's default: the more of a node's cpu and memory
// would stay free with the pod on it, the better (spreading the load).
type NodeResourcesFit struct{}

var (
	_ PreFilterPlugin   = (*NodeResourcesFit)(nil)
	_ FilterPlugin      = (*NodeResourcesFit)(nil)
	_ PreScorePlugin    = (*NodeResourcesFit)(nil)
	_ ScorePlugin       = (*NodeResourcesFit)(nil)
	_ EnqueueExtensions = (*NodeResourcesFit)(nil)
)

// Name returns NodeResourcesFitName.
func (*NodeResourcesFit) Name() string { return NodeResourcesFitName }

const (
	fitFilterKey = "PreFilter" + NodeResourcesFitName
	fitScoreKey  = "PreScore" + NodeResourcesFitName
)

// scoredResources are the resources both resource-scoring plugins look
// at, with their weights (kube-scheduler's default: cpu and memory, 1 each).
// (An array: the scoring plugins keep their per-node figures in arrays of
// this length, not in slices made per node.)
var scoredResources = [...]struct {
	name   corev1.ResourceName
	weight int64
}{{corev1.ResourceCPU, 1}, {corev1.ResourceMemory, 1}}

// PreFilter computes the pod's requests once.
func (*NodeResourcesFit) PreFilter(_ context.Context, state *CycleState, pod *corev1.Pod) *Status {
	state.Write(fitFilterKey, PodRequests(pod, false))
	return nil
}

// InsufficientResource is one resource a node lacks for a pod.
type InsufficientResource struct {
	Name      corev1.ResourceName
	Reason    string
	Requested int64 // what the pod asks for
	Used      int64 // what the node's pods already request
	Capacity  int64 // the node's allocatable amount
	// Unresolvable is set when the pod asks for more than the whole node
	// has: evicting other pods would not help.
	Unresolvable bool
}

// Fits lists what the node lacks for a pod requesting req, in the order
// pods, cpu, memory; nil when the pod fits.
func Fits(req Resources, nodeInfo *NodeInfo) []InsufficientResource {
	var out []InsufficientResource
	alloc, used := nodeInfo.Allocatable, nodeInfo.Requested
	if n := int64(len(nodeInfo.Pods)); n+1 > alloc.Pods {
		out = append(out, InsufficientResource{Name: corev1.ResourcePods, Reason: ErrReasonTooManyPods,
			Requested: 1, Used: n, Capacity: alloc.Pods})
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		out = append(out, InsufficientResource{Name: corev1.ResourceCPU, Reason: ErrReasonInsufficientCPU,
			Requested: req.MilliCPU, Used: used.MilliCPU, Capacity: alloc.MilliCPU, Unresolvable: req.MilliCPU > alloc.MilliCPU})
	}
	if req.Memory > 0 && req.Memory > alloc.Memory-used.Memory {
		out = append(out, InsufficientResource{Name: corev1.ResourceMemory, Reason: ErrReasonInsufficientMemory,
			Requested: req.Memory, Used: used.Memory, Capacity: alloc.Memory, Unresolvable: req.Memory > alloc.Memory})
	}
	return out
}

// Filter rejects a node that lacks room for the pod, with every reason
// that applies. The code is UnschedulableAndUnresolvable when the pod asks
// for more than the node has in all, Unschedulable otherwise.
func (*NodeResourcesFit) Filter(_ context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	var req Resources
	if v, ok := state.Read(fitFilterKey); ok {
		req = v.(Resources)
	} else {
		req = PodRequests(pod, false)
	}
	missing := Fits(req, nodeInfo)
	if len(missing) == 0 {
		return nil
	}
	code := Unschedulable
	reasons := make([]string, 0, len(missing))
	for _, m := range missing {
		reasons = append(reasons, m.Reason)
		if m.Unresolvable {
			code = UnschedulableAndUnresolvable
		}
	}
	return NewStatus(code, reasons...)
}

// PreScore computes the pod's requests for scoring, with the defaults for
// containers that request nothing.
func (*NodeResourcesFit) PreScore(_ context.Context, state *CycleState, pod *corev1.Pod, _ []*NodeInfo) *Status {
	state.Write(fitScoreKey, PodRequests(pod, true))
	return nil
}

// Score is the LeastAllocated score: for cpu and memory,
// (allocatable - requested with the pod) * 100 / allocatable, averaged by
// weight. Requests count with their defaults (NonZeroRequested).
func (*NodeResourcesFit) Score(_ context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status) {
	var req Resources
	if v, ok := state.Read(fitScoreKey); ok {
		req = v.(Resources)
	} else {
		req = PodRequests(pod, true)
	}
	var score, weights int64
	for _, r := range scoredResources {
		alloc, used, podReq := pick(r.name, nodeInfo.Allocatable), pick(r.name, nodeInfo.NonZeroRequested), pick(r.name, req)
		if alloc == 0 {
			continue
		}
		score += leastRequestedScore(used+podReq, alloc) * r.weight
		weights += r.weight
	}
	if weights == 0 {
		return 0, nil
	}
	return score / weights, nil
}

// NormalizeScore does nothing: scores are already 0-100.
func (*NodeResourcesFit) NormalizeScore(context.Context, *CycleState, *corev1.Pod, []NodeScore) *Status {
	return nil
}

// EventsToRegister: a new node, a node with more allocatable, or a bound
// pod going away.
func (*NodeResourcesFit) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{
		{Resource: NodeResource, ActionType: ActionAdd | ActionUpdateNodeAllocatable},
		{Resource: AssignedPod, ActionType: ActionDelete},
	}
}

// leastRequestedScore is the share of capacity left free, 0-100.
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
}

func pick(name corev1.ResourceName, r Resources) int64 {
	if name == corev1.ResourceCPU {
		return r.MilliCPU
	}
	return r.Memory
}
