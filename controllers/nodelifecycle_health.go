package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Upstream's reasons and messages for the conditions of a node whose
// kubelet went silent (or never spoke).
const (
	ReasonNodeStatusUnknown      = "NodeStatusUnknown"
	MessageNodeStatusUnknown     = "Kubelet stopped posting node status."
	ReasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverUpd    = "Kubelet never posted node status."
)

// unknownConditionTypes are the conditions set to Unknown when a node's
// health signals stop (NetworkUnavailable is left alone, as upstream).
var unknownConditionTypes = []corev1.NodeConditionType{
	corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure,
}

// nodeHealth is what the controller last saw of a node's health signals,
// and when, by its own clock (upstream's nodeHealthData): probeTimestamp
// is when the Lease's renewTime or the Ready condition's heartbeat last
// changed.
type nodeHealth struct {
	probeTimestamp           time.Time
	readyTransitionTimestamp time.Time
	status                   *corev1.NodeStatus
	lease                    *coordinationv1.Lease
}

// nodeHealths maps node names to their health; safe for concurrent use.
type nodeHealths struct {
	mu sync.RWMutex
	m  map[string]*nodeHealth
}

// get returns a copy of the node's health, or nil.
func (h *nodeHealths) get(name string) *nodeHealth {
	h.mu.RLock()
	defer h.mu.RUnlock()
	nh := h.m[name]
	if nh == nil {
		return nil
	}
	out := *nh
	out.status, out.lease = nh.status.DeepCopy(), nh.lease.DeepCopy()
	return &out
}

func (h *nodeHealths) set(name string, nh *nodeHealth) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m[name] = nh
}

// errStaleLease: the informer's Lease is older than the API server's, so
// the node's silence may not be real; the node is skipped this pass
// (upstream's NodeControllerLeaseCircuitBreaker, beta and on in v1.37).
var errStaleLease = fmt.Errorf("the Lease in the informer's cache is stale")

func readyCondition(s *corev1.NodeStatus) *corev1.NodeCondition {
	return nodeCondition(s, corev1.NodeReady)
}

func nodeCondition(s *corev1.NodeStatus, t corev1.NodeConditionType) *corev1.NodeCondition {
	if s == nil {
		return nil
	}
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// tryUpdateNodeHealth compares node's health signals with what the
// controller saw last, as upstream's tryUpdateNodeHealth, and, once none
// has changed for the grace period, writes the node's conditions as
// Unknown. It returns the Ready condition as observed and as it is now
// (nil if the node has none).
func (c *NodeLifecycleController) tryUpdateNodeHealth(ctx context.Context, node *corev1.Node, writes *writeLog) (corev1.NodeCondition, *corev1.NodeCondition, error) {
	saved := c.health.get(node.Name)
	current := readyCondition(&node.Status)
	observed, grace := c.observedReady(node, current)
	nh := c.freshHealth(node, saved, current)
	defer func() { c.health.set(node.Name, nh) }()
	if lease, _ := c.leaseLister.Leases(corev1.NamespaceNodeLease).Get(node.Name); lease != nil &&
		(saved == nil || saved.lease == nil || renewedAfter(lease, saved.lease)) {
		nh.lease, nh.probeTimestamp = lease, c.now()
	}
	if !c.now().After(nh.probeTimestamp.Add(grace)) {
		return observed, current, nil
	}
	if err := c.checkLeaseFresh(ctx, node.Name, nh.lease); err != nil {
		return observed, nil, err
	}
	markConditionsUnknown(node, metav1.NewTime(c.now()))
	current = readyCondition(&node.Status)
	if apiequality.Semantic.DeepEqual(current, &observed) {
		return observed, current, nil
	}
	_, err := c.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	writes.add(fmt.Sprintf("PUT nodes/%s/status (Ready=Unknown, %s) → %s", node.Name, ReasonNodeStatusUnknown, statusWord(err)))
	if err != nil {
		return observed, current, err
	}
	nh = &nodeHealth{status: &node.Status, probeTimestamp: nh.probeTimestamp, readyTransitionTimestamp: c.now(), lease: nh.lease}
	return observed, current, nil
}

// observedReady is the node's Ready condition as the kubelet left it, or,
// for a node that never posted one, an Unknown one dated at its creation
// with the startup grace period.
func (c *NodeLifecycleController) observedReady(node *corev1.Node, current *corev1.NodeCondition) (corev1.NodeCondition, time.Duration) {
	if current == nil {
		return corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}, c.startupGracePeriod
	}
	return *current, c.gracePeriod
}

// freshHealth is the node's health after this look at its status: a new
// probe timestamp when its Ready heartbeat changed (or it is new), and a
// new transition timestamp when the condition's transition changed.
func (c *NodeLifecycleController) freshHealth(node *corev1.Node, saved *nodeHealth, current *corev1.NodeCondition) *nodeHealth {
	now := c.now()
	var savedReady *corev1.NodeCondition
	if saved != nil {
		savedReady = readyCondition(saved.status)
	}
	switch {
	case saved == nil && current == nil:
		return &nodeHealth{status: &node.Status, probeTimestamp: node.CreationTimestamp.Time, readyTransitionTimestamp: node.CreationTimestamp.Time}
	case current == nil:
		saved.status = &node.Status
		return saved
	case saved == nil || savedReady == nil:
		return &nodeHealth{status: &node.Status, probeTimestamp: now, readyTransitionTimestamp: now, lease: leaseOf(saved)}
	case !savedReady.LastHeartbeatTime.Equal(&current.LastHeartbeatTime):
		transition := saved.readyTransitionTimestamp
		if !savedReady.LastTransitionTime.Equal(&current.LastTransitionTime) {
			transition = now
		}
		return &nodeHealth{status: &node.Status, probeTimestamp: now, readyTransitionTimestamp: transition, lease: saved.lease}
	}
	return saved // nothing new: it may be silent
}

func leaseOf(h *nodeHealth) *coordinationv1.Lease {
	if h == nil {
		return nil
	}
	return h.lease
}

// renewedAfter reports whether lease was renewed after saved was.
func renewedAfter(lease, saved *coordinationv1.Lease) bool {
	if lease.Spec.RenewTime == nil {
		return false
	}
	return saved.Spec.RenewTime == nil || saved.Spec.RenewTime.Before(lease.Spec.RenewTime)
}

// checkLeaseFresh reads the node's Lease from the API server before the
// node is declared silent: if it is not the one the informer has, the
// cache lags and the node is left for the next pass.
func (c *NodeLifecycleController) checkLeaseFresh(ctx context.Context, name string, cached *coordinationv1.Lease) error {
	live, err := c.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("lease of node %s: %w", name, err)
	case cached == nil || live.ResourceVersion != cached.ResourceVersion:
		return errStaleLease
	}
	return nil
}

// markConditionsUnknown sets the node's unknownConditionTypes to Unknown
// (adding those the kubelet never posted) at now.
func markConditionsUnknown(node *corev1.Node, now metav1.Time) {
	for _, t := range unknownConditionTypes {
		cond := nodeCondition(&node.Status, t)
		if cond == nil {
			node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: t, Status: corev1.ConditionUnknown,
				Reason: ReasonNodeStatusNeverUpdated, Message: MessageNodeStatusNeverUpd,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: now})
			continue
		}
		if cond.Status != corev1.ConditionUnknown {
			cond.Status, cond.Reason, cond.Message = corev1.ConditionUnknown, ReasonNodeStatusUnknown, MessageNodeStatusUnknown
			cond.LastTransitionTime = now
		}
	}
}
