package scheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// NodeUnschedulableName is the name of the NodeUnschedulable plugin.
const NodeUnschedulableName = "NodeUnschedulable"

// ErrReasonNodeUnschedulable is NodeUnschedulable's reason for rejecting a
// node.
const ErrReasonNodeUnschedulable = "node(s) were unschedulable"

// NodeUnschedulable keeps pods off cordoned nodes (spec.unschedulable,
// what `kubectl cordon` sets), unless the pod tolerates the taint
// node.kubernetes.io/unschedulable:NoSchedule that stands for it.
type NodeUnschedulable struct{}

var (
	_ FilterPlugin      = (*NodeUnschedulable)(nil)
	_ EnqueueExtensions = (*NodeUnschedulable)(nil)
)

// Name returns NodeUnschedulableName.
func (*NodeUnschedulable) Name() string { return NodeUnschedulableName }

// Filter rejects a cordoned node the pod does not tolerate.
func (*NodeUnschedulable) Filter(ctx context.Context, _ *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	node := nodeInfo.Node()
	if !node.Spec.Unschedulable {
		return nil
	}
	cordon := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	if tolerates(klog.FromContext(ctx), pod.Spec.Tolerations, &cordon) {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, ErrReasonNodeUnschedulable)
}

// EventsToRegister: a new node, or an uncordoned one (kube-scheduler
// counts a change of spec.unschedulable as a taint change).
func (*NodeUnschedulable) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{{Resource: NodeResource, ActionType: ActionAdd | ActionUpdateNodeTaint}}
}
