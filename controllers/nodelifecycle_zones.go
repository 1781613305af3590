package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	nodetopology "k8s.io/component-helpers/node/topology"
)

// zoneState is the health of a zone, as upstream's ZoneState.
type zoneState string

const (
	stateInitial           zoneState = "Initial"
	stateNormal            zoneState = "Normal"
	stateFullDisruption    zoneState = "FullDisruption"
	statePartialDisruption zoneState = "PartialDisruption"
)

// A node's zone, for the rate limits of its tainting, is
// k8s.io/component-helpers' GetZoneKey, as upstream's: its region and
// zone labels (the deprecated failure-domain.beta ones when present, else
// the topology.kubernetes.io ones), "" for a node with neither (a cluster
// without zones is one zone).

// ensureZone gives the node's zone a state and a tainting queue, at the
// normal rate, if it has none.
func (c *NodeLifecycleController) ensureZone(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	z := nodetopology.GetZoneKey(node)
	if _, ok := c.zoneStates[z]; !ok {
		c.zoneStates[z] = stateInitial
		c.zoneTainters[z] = newTaintingQueue(c.evictionQPS)
	}
}

// tainter is the zone's tainting queue, made if need be.
func (c *NodeLifecycleController) tainter(zone string) *taintingQueue {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, ok := c.zoneTainters[zone]
	if !ok {
		q = newTaintingQueue(c.evictionQPS)
		c.zoneTainters[zone] = q
	}
	return q
}

// computeZoneState counts the zone's nodes that are not Ready: none
// Ready is a full disruption; more than 2 and at least the unhealthy
// threshold of them a partial one.
func (c *NodeLifecycleController) computeZoneState(ready []*corev1.NodeCondition) (int, zoneState) {
	readyNodes, notReady := 0, 0
	for _, r := range ready {
		if r != nil && r.Status == corev1.ConditionTrue {
			readyNodes++
		} else {
			notReady++
		}
	}
	switch {
	case readyNodes == 0 && notReady > 0:
		return notReady, stateFullDisruption
	case notReady > 2 && float32(notReady)/float32(notReady+readyNodes) >= c.unhealthyZoneThreshold:
		return notReady, statePartialDisruption
	}
	return notReady, stateNormal
}

// handleDisruption moves the zones to their new states, as upstream's
// handleDisruption: when every zone is fully disrupted (no node Ready
// anywhere: more likely the control plane's network than every node) the
// NoExecute taints come off every node and tainting stops; when some
// node is Ready again every node's health starts afresh; otherwise each
// zone that changed gets its state's rate.
func (c *NodeLifecycleController) handleDisruption(ctx context.Context, zoneConditions map[string][]*corev1.NodeCondition, nodes []*corev1.Node) {
	c.mu.Lock()
	newStates := map[string]zoneState{}
	allAre := true
	for z, conds := range zoneConditions {
		_, st := c.computeZoneState(conds)
		allAre = allAre && st == stateFullDisruption
		newStates[z] = st
		if _, ok := c.zoneStates[z]; !ok {
			c.zoneStates[z] = stateInitial
		}
	}
	allWere := true
	for z, st := range c.zoneStates {
		if _, ok := zoneConditions[z]; !ok {
			delete(c.zoneStates, z)
			continue
		}
		if st != stateFullDisruption {
			allWere = false
		}
	}
	c.mu.Unlock()
	switch {
	case allAre && allWere:
	case allAre:
		c.enterFullDisruption(ctx, nodes)
	case allWere:
		c.exitFullDisruption(nodes, zoneConditions, newStates)
	default:
		c.mu.Lock()
		for z, st := range c.zoneStates {
			if st != newStates[z] {
				c.setZoneLimiter(z, len(zoneConditions[z]), newStates[z])
				c.zoneStates[z] = newStates[z]
			}
		}
		c.mu.Unlock()
	}
}

// enterFullDisruption takes the NoExecute taints off every node and stops
// every zone's tainting.
func (c *NodeLifecycleController) enterFullDisruption(ctx context.Context, nodes []*corev1.Node) {
	writes := newWriteLog()
	for _, n := range nodes {
		_, _ = c.markNodeAsReachable(ctx, n, writes)
	}
	c.mu.Lock()
	for z := range c.zoneStates {
		if q, ok := c.zoneTainters[z]; ok {
			q.swapLimiter(0)
		}
		c.zoneStates[z] = stateFullDisruption
	}
	c.mu.Unlock()
	c.observe("every node not Ready", "", "all zones fully disrupted: NoExecute taints removed, evictions stopped", writes)
}

// exitFullDisruption starts every node's health afresh and gives each
// zone its state's rate.
func (c *NodeLifecycleController) exitFullDisruption(nodes []*corev1.Node, zoneConditions map[string][]*corev1.NodeCondition, newStates map[string]zoneState) {
	now := c.now()
	for _, n := range nodes {
		if nh := c.health.get(n.Name); nh != nil {
			nh.probeTimestamp, nh.readyTransitionTimestamp = now, now
			c.health.set(n.Name, nh)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for z := range c.zoneStates {
		c.setZoneLimiter(z, len(zoneConditions[z]), newStates[z])
		c.zoneStates[z] = newStates[z]
	}
}

// setZoneLimiter gives the zone the rate of state: the eviction rate when
// normal or fully disrupted, the secondary rate when partially disrupted
// and larger than the large-cluster threshold, else 0. The caller holds
// c.mu.
func (c *NodeLifecycleController) setZoneLimiter(zone string, size int, state zoneState) {
	q, ok := c.zoneTainters[zone]
	if !ok {
		return
	}
	switch state {
	case stateNormal, stateFullDisruption:
		q.swapLimiter(c.evictionQPS)
	case statePartialDisruption:
		qps := float32(0)
		if size > c.largeClusterThreshold {
			qps = c.secondaryEvictionQPS
		}
		q.swapLimiter(qps)
	}
}

// markNodeForTainting queues the node for the NoExecute taint of status
// (dropping a stale entry first if the node lacks that taint); it
// reports whether the node was queued.
func (c *NodeLifecycleController) markNodeForTainting(node *corev1.Node, status corev1.ConditionStatus) bool {
	q := c.tainter(nodetopology.GetZoneKey(node))
	want := unreachableTaint
	if status == corev1.ConditionFalse {
		want = notReadyTaint
	}
	if !hasTaint(node.Spec.Taints, &want) {
		q.remove(node.Name)
	}
	return q.add(node.Name, string(node.UID), c.now())
}

// markNodeAsReachable takes the NoExecute taints off the node and out of
// its zone's queue; it reports whether the node was queued or tainted.
func (c *NodeLifecycleController) markNodeAsReachable(ctx context.Context, node *corev1.Node, writes *writeLog) (bool, error) {
	p := c.taints
	p.wrote = writes.add
	removedTaint, err := p.removeTaints(ctx, node.Name, node, unreachableTaint, notReadyTaint)
	if err != nil {
		return false, err
	}
	return c.tainter(nodetopology.GetZoneKey(node)).remove(node.Name) || removedTaint, nil
}
