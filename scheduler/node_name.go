package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// NodeNameName is the name of the NodeName plugin.
const NodeNameName = "NodeName"

// ErrReasonNodeName is NodeName's reason for rejecting a node.
const ErrReasonNodeName = "node(s) didn't match the requested node name"

// NodeName lets a pod that names its node (spec.nodeName) go only there.
// The scheduler only picks up pods without a node name, so for them every
// node passes; it is kept because kube-scheduler runs it first.
type NodeName struct{}

var (
	_ FilterPlugin      = (*NodeName)(nil)
	_ EnqueueExtensions = (*NodeName)(nil)
)

// Name returns NodeNameName.
func (*NodeName) Name() string { return NodeNameName }

// Filter rejects every node but the one the pod names, if it names one.
func (*NodeName) Filter(_ context.Context, _ *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	if pod.Spec.NodeName == "" || pod.Spec.NodeName == nodeInfo.Name() {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, ErrReasonNodeName)
}

// EventsToRegister: only a new node can be the named one.
func (*NodeName) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{{Resource: NodeResource, ActionType: ActionAdd}}
}
