package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/klog/v2"
)

// Upstream's DisruptionTarget condition for a pod deleted by the taint
// eviction controller.
const (
	ReasonDeletionByTaintManager  = "DeletionByTaintManager"
	MessageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint"
	// evictionRetries is how often a deletion is tried (10 ms apart).
	evictionRetries = 5
)

// matchingTolerations reports whether every taint is tolerated, and the
// tolerations that do it (the first for each taint), as upstream's
// GetMatchingTolerations. That one is in k8s.io/kubernetes
// (pkg/apis/core/v1/helper); k8s.io/component-helpers only says whether
// all are tolerated (FindMatchingUntoleratedTaint), not by which
// tolerations, and tolerationSeconds need those. Each match is k8s.io/api's
// Toleration.ToleratesTaint, which both call.
func matchingTolerations(logger klog.Logger, taints []corev1.Taint, tolerations []corev1.Toleration) (bool, []corev1.Toleration) {
	var used []corev1.Toleration
	for i := range taints {
		found := false
		for _, tol := range tolerations {
			if tol.ToleratesTaint(logger, &taints[i], tolerateCompareOps) {
				used, found = append(used, tol), true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, used
}

// tolerateCompareOps is the TaintTolerationComparisonOperators feature
// (alpha, off in v1.37).
const tolerateCompareOps = false

// minTolerationTime is the shortest tolerationSeconds of tolerations: 0
// for none (or one of 0 or less), -1 if they all tolerate forever.
func minTolerationTime(tolerations []corev1.Toleration) time.Duration {
	if len(tolerations) == 0 {
		return 0
	}
	least := int64(math.MaxInt64)
	for _, t := range tolerations {
		if t.TolerationSeconds == nil {
			continue
		}
		if *t.TolerationSeconds <= 0 {
			return 0
		}
		least = min(least, *t.TolerationSeconds)
	}
	if least == math.MaxInt64 {
		return -1
	}
	return time.Duration(least) * time.Second
}

// processPodOnNode schedules, keeps or cancels the deletion of the pod
// key on node with taints, as upstream's processPodOnNode: a taint the
// pod does not tolerate deletes it now; tolerations with
// tolerationSeconds delete it that long (at the node health speed) after
// the first time it was scheduled; tolerating forever cancels it.
func (c *TaintEvictionController) processPodOnNode(ctx context.Context, key, node string, tolerations []corev1.Toleration, taints []corev1.Taint, now time.Time) {
	if len(taints) == 0 {
		c.cancelEviction(key)
	}
	allTolerated, used := matchingTolerations(klog.FromContext(ctx), taints, tolerations)
	if !allTolerated {
		c.cancelEviction(key)
		c.timers.add(ctx, key, now, now)
		return
	}
	least := minTolerationTime(used)
	if least < 0 {
		c.cancelEviction(key)
		return
	}
	scaled := c.cfg.nodeHealthPeriod(least)
	start, trigger := now, now.Add(scaled)
	if t := c.timers.get(key); t != nil {
		start = t.createdAt
		if start.Add(scaled).Before(trigger) {
			return
		}
		c.cancelEviction(key)
	}
	c.timers.add(ctx, key, start, trigger)
	if scaled > 0 {
		c.cfg.observe(Action{Controller: TaintEvictionControllerName, Trigger: "NoExecute taint on node " + node, Key: key,
			Decision: fmt.Sprintf("tolerates %s for %s: deletion scheduled at %s", taintList(taints), least, trigger.Format(time.TimeOnly))})
	}
}

func taintList(taints []corev1.Taint) string {
	keys := make([]string, 0, len(taints))
	for _, t := range taints {
		keys = append(keys, t.Key+":"+string(t.Effect))
	}
	return strings.Join(keys, ", ")
}

// cancelEviction cancels key's pending deletion, with the event
// TaintManagerEviction "Cancelling deletion of Pod <ns>/<name>".
func (c *TaintEvictionController) cancelEviction(key string) {
	if !c.timers.cancel(key) {
		return
	}
	c.podEvent(key, "Cancelling deletion of Pod "+key)
	c.cfg.observe(Action{Controller: TaintEvictionControllerName, Key: key, Decision: "NoExecute taint gone or tolerated: deletion cancelled"})
}

// podEvent records a TaintManagerEviction event about the pod key.
func (c *TaintEvictionController) podEvent(key, message string) {
	ns, name, err := splitKey(key)
	if err != nil {
		return
	}
	ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: name}
	c.recorder.Event(ref, corev1.EventTypeNormal, "TaintManagerEviction", message)
}

// evict deletes the pod key, with the event TaintManagerEviction "Marking
// for deletion Pod <ns>/<name>" first, retrying as upstream.
func (c *TaintEvictionController) evict(ctx context.Context, key string) {
	c.podEvent(key, "Marking for deletion Pod "+key)
	writes := newWriteLog()
	for range evictionRetries {
		if err := c.addConditionAndDelete(ctx, key, writes); err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.cfg.observe(Action{Time: writes.began, Controller: TaintEvictionControllerName, Trigger: "toleration ran out", Key: key,
		Decision: "NoExecute taint no longer tolerated: deleting the pod", Writes: writes.lines()})
}

// addConditionAndDelete adds the pod's DisruptionTarget condition (a
// status patch with the pod's UID as precondition), then deletes it.
func (c *TaintEvictionController) addConditionAndDelete(ctx context.Context, key string, writes *writeLog) error {
	ns, name, err := splitKey(key)
	if err != nil {
		return nil
	}
	pods := c.client.CoreV1().Pods(ns)
	pod, err := pods.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	status := pod.Status.DeepCopy()
	if setPodCondition(status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		ObservedGeneration: pod.Generation, Reason: ReasonDeletionByTaintManager, Message: MessageDeletionByTaintManager}) {
		patch, err := podStatusPatch(pod, status)
		if err != nil {
			return err
		}
		_, err = pods.Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		writes.add(fmt.Sprintf("PATCH pods/%s/status -n %s (DisruptionTarget: %s) → %s", name, ns, ReasonDeletionByTaintManager, statusWord(err)))
		if err != nil {
			return err
		}
	}
	err = pods.Delete(ctx, name, metav1.DeleteOptions{})
	writes.add(fmt.Sprintf("DELETE pods/%s -n %s → %s", name, ns, statusWord(err)))
	return err
}

// setPodCondition puts cond in status, as upstream's UpdatePodCondition:
// its lastTransitionTime is now unless the status is unchanged; it
// reports whether anything changed.
func setPodCondition(status *corev1.PodStatus, cond corev1.PodCondition) bool {
	cond.LastTransitionTime = metav1.Now()
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		same := old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message &&
			old.LastProbeTime.Equal(&cond.LastProbeTime) && old.LastTransitionTime.Equal(&cond.LastTransitionTime) &&
			old.ObservedGeneration == cond.ObservedGeneration
		*old = cond
		return !same
	}
	status.Conditions = append(status.Conditions, cond)
	return true
}

// podStatusPatch is the strategic merge patch from the pod's status to
// status, with the pod's UID as a precondition (upstream's PatchPodStatus).
func podStatusPatch(pod *corev1.Pod, status *corev1.PodStatus) ([]byte, error) {
	oldData, err := json.Marshal(corev1.Pod{Status: pod.Status})
	if err != nil {
		return nil, err
	}
	newData, err := json.Marshal(corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: pod.UID}, Status: *status})
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(oldData, newData, corev1.Pod{})
}
