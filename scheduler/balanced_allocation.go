package scheduler

import (
	"context"
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
)

// NodeResourcesBalancedAllocationName is the name of the
// NodeResourcesBalancedAllocation plugin.
const NodeResourcesBalancedAllocationName = "NodeResourcesBalancedAllocation"

// NodeResourcesBalancedAllocation prefers nodes whose cpu and memory would
// be used in similar proportions with the pod on them, so that no node
// runs out of one while the other lies idle. It only scores.
type NodeResourcesBalancedAllocation struct{}

var (
	_ PreScorePlugin = (*NodeResourcesBalancedAllocation)(nil)
	_ ScorePlugin    = (*NodeResourcesBalancedAllocation)(nil)
)

// Name returns NodeResourcesBalancedAllocationName.
func (*NodeResourcesBalancedAllocation) Name() string { return NodeResourcesBalancedAllocationName }

const balancedStateKey = "PreScore" + NodeResourcesBalancedAllocationName

// PreScore computes the pod's requests (as requested, without defaults);
// a pod that requests nothing is not scored by this plugin.
func (*NodeResourcesBalancedAllocation) PreScore(_ context.Context, state *CycleState, pod *corev1.Pod, _ []*NodeInfo) *Status {
	req := PodRequests(pod, false)
	if req.MilliCPU == 0 && req.Memory == 0 {
		return NewStatus(Skip)
	}
	state.Write(balancedStateKey, req)
	return nil
}

// Score compares how balanced the node's cpu and memory shares are with
// the pod and without it: 50 when the pod changes nothing, up to 100 when
// it evens them out, down to 0 when it skews them. The balance of a set of
// shares is 100 * (1 - their standard deviation).
func (*NodeResourcesBalancedAllocation) Score(_ context.Context, state *CycleState, _ *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status) {
	v, ok := state.Read(balancedStateKey)
	if !ok {
		return 0, AsStatus(fmt.Errorf("%s: PreScore did not run", NodeResourcesBalancedAllocationName))
	}
	req := v.(Resources)
	var with, without, alloc [len(scoredResources)]int64
	k := 0
	for _, r := range scoredResources {
		a := pick(r.name, nodeInfo.Allocatable)
		if a == 0 {
			continue
		}
		used := pick(r.name, nodeInfo.Requested)
		alloc[k], without[k], with[k] = a, used, used+pick(r.name, req)
		k++
	}
	return MaxNodeScore/2 + (MaxNodeScore/2+balance(with[:k], alloc[:k])-balance(without[:k], alloc[:k]))/2, nil
}

// NormalizeScore does nothing: scores are already 0-100.
func (*NodeResourcesBalancedAllocation) NormalizeScore(context.Context, *CycleState, *corev1.Pod, []NodeScore) *Status {
	return nil
}

// balance is 100 * (1 - standard deviation of the shares requested/alloc),
// each share capped at 1. (Two resources, the default, take a shortcut:
// the deviation of two shares is half their distance.)
func balance(requested, alloc []int64) int64 {
	var std float64
	switch n := len(requested); {
	case n == 2:
		std = math.Abs((share(requested[0], alloc[0]) - share(requested[1], alloc[1])) / 2)
	case n > 2:
		var total float64
		for i := range n {
			total += share(requested[i], alloc[i])
		}
		mean := total / float64(n)
		var sum float64
		for i := range n {
			d := share(requested[i], alloc[i]) - mean
			sum += d * d
		}
		std = math.Sqrt(sum / float64(n))
	}
	return int64((1 - std) * float64(MaxNodeScore))
}

// share is requested/alloc, at most 1.
func share(requested, alloc int64) float64 {
	return min(float64(requested)/float64(alloc), 1)
}
