package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	nodetopology "k8s.io/component-helpers/node/topology"
	"k8s.io/klog/v2"
)

// Upstream's retries of one node's health update: every 20 ms, 5 times.
const (
	healthUpdateRetrySleep = 20 * time.Millisecond
	healthUpdateRetries    = 5
)

// labelNodeDisruptionExclusion keeps a node out of its zone's disruption
// count.
const labelNodeDisruptionExclusion = "node.kubernetes.io/exclude-disruption"

// monitorNodeHealth is one pass over every node, as upstream's
// monitorNodeHealth: new and deleted nodes are noted (RegisteredNode,
// RemovingNode events), each node's health is brought up to date, an
// unhealthy node is queued for its NoExecute taint and its pods are
// marked not ready, and the zones' states set their tainting rates.
func (c *NodeLifecycleController) monitorNodeHealth(ctx context.Context) {
	nodes, err := c.nodeLister.List(labels.Everything())
	if err != nil {
		return
	}
	c.classifyNodes(nodes)
	var mu sync.Mutex
	zoneConditions := map[string][]*corev1.NodeCondition{}
	workqueue.ParallelizeUntil(ctx, nodeUpdateWorkers, len(nodes), func(i int) {
		node := nodes[i].DeepCopy()
		ready, ok := c.updateNodeHealth(ctx, node)
		if !ok {
			return
		}
		if _, excluded := node.Labels[labelNodeDisruptionExclusion]; !excluded {
			mu.Lock()
			zone := nodetopology.GetZoneKey(node)
			zoneConditions[zone] = append(zoneConditions[zone], ready)
			mu.Unlock()
		}
	})
	c.handleDisruption(ctx, zoneConditions, nodes)
}

// classifyNodes records the nodes that appeared or went since the last
// pass, and gives a new zone its tainting queue.
func (c *NodeLifecycleController) classifyNodes(nodes []*corev1.Node) {
	seen := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		seen[n.Name] = true
		c.ensureZone(n)
		if _, known := c.knownNodes[n.Name]; known {
			continue
		}
		c.knownNodes[n.Name] = n
		c.nodeEvent(n.Name, string(n.UID), "RegisteredNode", fmt.Sprintf("Registered Node %s in Controller", n.Name))
	}
	for name, n := range c.knownNodes {
		if !seen[name] {
			delete(c.knownNodes, name)
			c.nodeEvent(name, string(n.UID), "RemovingNode", fmt.Sprintf("Removing Node %s from Controller", name))
		}
	}
}

// updateNodeHealth updates one node's health (retried, with the node read
// again, as upstream) and acts on it; it returns the node's Ready
// condition now, and false if the node was skipped.
func (c *NodeLifecycleController) updateNodeHealth(ctx context.Context, node *corev1.Node) (*corev1.NodeCondition, bool) {
	var observed corev1.NodeCondition
	var current *corev1.NodeCondition
	writes := newWriteLog()
	var err error
	for range healthUpdateRetries {
		if observed, current, err = c.tryUpdateNodeHealth(ctx, node, writes); err == nil || errors.Is(err, errStaleLease) {
			break
		}
		time.Sleep(healthUpdateRetrySleep)
		fresh, getErr := c.client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if getErr != nil {
			err = getErr // deleted, probably
			break
		}
		node = fresh
	}
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Skipping node this pass", "node", node.Name, "err", err)
		return nil, false
	}
	if current == nil {
		return nil, true
	}
	c.processTaintBasedEviction(ctx, node, current)
	_, needsRetry := c.retry.Load(node.Name)
	wentUnhealthy := current.Status != corev1.ConditionTrue && observed.Status == corev1.ConditionTrue
	if wentUnhealthy {
		c.nodeEvent(node.Name, string(node.UID), "NodeNotReady", fmt.Sprintf("Node %s status is now: NodeNotReady", node.Name))
	}
	if wentUnhealthy || (needsRetry && observed.Status != corev1.ConditionTrue) {
		if err := c.markPodsNotReady(ctx, podsOnNode(c.podIndexer, node.Name), node.Name, writes); err != nil {
			c.retry.Store(node.Name, struct{}{})
			return current, true
		}
	}
	c.retry.Delete(node.Name)
	if len(writes.lines()) > 0 {
		c.observe("lease of "+node.Name+" not renewed", node.Name,
			fmt.Sprintf("no heartbeat for %s (grace period): Ready %s → %s", c.gracePeriod, observed.Status, current.Status), writes)
	}
	return current, true
}

// processTaintBasedEviction queues an unhealthy node for its NoExecute
// taint (or swaps not-ready and unreachable at once), and takes the
// taints off a Ready node.
func (c *NodeLifecycleController) processTaintBasedEviction(ctx context.Context, node *corev1.Node, ready *corev1.NodeCondition) {
	switch ready.Status {
	case corev1.ConditionFalse:
		c.swapOrQueue(ctx, node, notReadyTaint, unreachableTaint, corev1.ConditionFalse)
	case corev1.ConditionUnknown:
		c.swapOrQueue(ctx, node, unreachableTaint, notReadyTaint, corev1.ConditionUnknown)
	case corev1.ConditionTrue:
		writes := newWriteLog()
		if removed, err := c.markNodeAsReachable(ctx, node, writes); err == nil && removed {
			c.observe("Ready "+node.Name, node.Name, "node Ready again: NoExecute taints removed", writes)
		}
	}
}

// swapOrQueue replaces opposite with want at once if the node has
// opposite, or queues the node for want.
func (c *NodeLifecycleController) swapOrQueue(ctx context.Context, node *corev1.Node, want, opposite corev1.Taint, status corev1.ConditionStatus) {
	if hasTaint(node.Spec.Taints, &opposite) {
		writes := newWriteLog()
		_ = c.swapTaint(ctx, node, want, opposite, writes)
		c.observe("Ready "+string(status)+" "+node.Name, node.Name, "swap "+opposite.Key+" for "+want.Key, writes)
		return
	}
	c.markNodeForTainting(node, status)
}

// nodeEvent records an event about the node, as upstream's
// RecordNodeEvent and RecordNodeStatusChange ("Node <name> event: ..." for
// the former).
func (c *NodeLifecycleController) nodeEvent(name, uid, reason, message string) {
	ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: name, UID: types.UID(uid)}
	if reason == "RegisteredNode" || reason == "RemovingNode" {
		message = fmt.Sprintf("Node %s event: %s", name, message)
	}
	c.recorder.Event(ref, corev1.EventTypeNormal, reason, message)
}

// observe reports an action of the node lifecycle controller, begun
// when its writes' log was.
func (c *NodeLifecycleController) observe(trigger, key, decision string, writes *writeLog) {
	c.cfg.observe(Action{Time: writes.began, Controller: NodeLifecycleControllerName, Trigger: trigger, Key: key, Decision: decision, Writes: writes.lines()})
}
