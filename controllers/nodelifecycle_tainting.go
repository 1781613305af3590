package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// taintRetry is how soon a node whose NoExecute taint could not be
// decided is tried again (upstream's 50 ms).
const taintRetry = 50 * time.Millisecond

// noExecuteTaintingPass gives the queued nodes of each zone their
// NoExecute taint, as many as the zone's rate limiter allows: unreachable
// for Ready Unknown, not-ready for Ready False (and takes the other one
// off); a node Ready again by now leaves the queue untainted. Upstream
// rate-limits the taints rather than the evictions, because the taint
// eviction controller evicts every pod whose toleration ran out.
func (c *NodeLifecycleController) noExecuteTaintingPass(ctx context.Context) {
	c.mu.Lock()
	queues := make([]*taintingQueue, 0, len(c.zoneTainters))
	for _, q := range c.zoneTainters {
		queues = append(queues, q)
	}
	c.mu.Unlock()
	for _, q := range queues {
		q.try(c.now(), func(name, _ string) (bool, time.Duration) { return c.taintNoExecute(ctx, name) })
	}
}

// taintNoExecute puts the NoExecute taint the node's Ready condition
// calls for on it; false with a delay to try again later.
func (c *NodeLifecycleController) taintNoExecute(ctx context.Context, name string) (bool, time.Duration) {
	node, err := c.nodeLister.Get(name)
	if apierrors.IsNotFound(err) {
		return true, 0
	} else if err != nil {
		return false, taintRetry
	}
	ready := readyCondition(&node.Status)
	if ready == nil {
		return false, taintRetry
	}
	var add, remove corev1.Taint
	switch ready.Status {
	case corev1.ConditionFalse:
		add, remove = notReadyTaint, unreachableTaint
	case corev1.ConditionUnknown:
		add, remove = unreachableTaint, notReadyTaint
	default:
		return true, 0 // Ready again
	}
	writes := newWriteLog()
	err = c.swapTaint(ctx, node, add, remove, writes)
	c.observe("Ready "+string(ready.Status)+" "+name, name,
		fmt.Sprintf("Ready %s: taint %s:%s (the zone's rate limiter let it through)", ready.Status, add.Key, add.Effect), writes)
	return err == nil, 0
}

// swapTaint adds add to the node and removes remove, as upstream's
// SwapNodeControllerTaint.
func (c *NodeLifecycleController) swapTaint(ctx context.Context, node *corev1.Node, add, remove corev1.Taint, writes *writeLog) error {
	return c.swapTaints(ctx, node, []corev1.Taint{add}, []corev1.Taint{remove}, writes)
}

func (c *NodeLifecycleController) swapTaints(ctx context.Context, node *corev1.Node, add, remove []corev1.Taint, writes *writeLog) error {
	p := c.taints
	p.wrote = writes.add
	if len(add) > 0 {
		if _, err := p.addTaints(ctx, node.Name, add...); err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		if _, err := p.removeTaints(ctx, node.Name, node, remove...); err != nil {
			return err
		}
	}
	return nil
}

// noScheduleTaintingPass makes the node's NoSchedule taints those of its
// conditions (node.kubernetes.io/unreachable for Ready Unknown,
// not-ready for Ready False, memory-pressure, disk-pressure,
// pid-pressure, network-unavailable) and of spec.unschedulable, as
// upstream's doNoScheduleTaintingPass; the scheduler then keeps new pods
// off the node. Unlike the NoExecute taints these are not rate limited.
func (c *NodeLifecycleController) noScheduleTaintingPass(ctx context.Context, name string) {
	node, err := c.nodeLister.Get(name)
	if err != nil {
		return
	}
	var want []corev1.Taint
	for _, cond := range node.Status.Conditions {
		if key, ok := conditionTaintKeys[cond.Type][cond.Status]; ok {
			want = append(want, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		want = append(want, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	var have []corev1.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule && (t.Key == corev1.TaintNodeUnschedulable || conditionTaintKey(t.Key)) {
			have = append(have, t)
		}
	}
	add, remove := taintDiff(want, have), taintDiff(have, want)
	if len(add) == 0 && len(remove) == 0 {
		return
	}
	writes := newWriteLog()
	_ = c.swapTaints(ctx, node, add, remove, writes)
	c.observe("update Node "+name, name, fmt.Sprintf("conditions call for NoSchedule taints: add %s, remove %s",
		taintKeys(add), taintKeys(remove)), writes)
}

// taintDiff is the taints of a that match none of b.
func taintDiff(a, b []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for i := range a {
		if !hasTaint(b, &a[i]) {
			out = append(out, a[i])
		}
	}
	return out
}

func taintKeys(ts []corev1.Taint) string {
	if len(ts) == 0 {
		return "none"
	}
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.Key + ":" + string(t.Effect)
	}
	return s
}
