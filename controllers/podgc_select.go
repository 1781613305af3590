package controllers

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// orphanCondition is the condition upstream gives a pod whose node is
// gone.
var orphanCondition = &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
	Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"}

// evictedReason is the kubelet's status.reason of a pod it evicted.
const evictedReason = "Evicted"

func isPodTerminated(p *corev1.Pod) bool {
	ph := p.Status.Phase
	return ph != corev1.PodPending && ph != corev1.PodRunning && ph != corev1.PodUnknown
}

// terminatedOverThreshold is the finished pods beyond threshold, the
// kubelet's evicted ones first, then the oldest.
func terminatedOverThreshold(pods []*corev1.Pod, threshold int) []*corev1.Pod {
	var done []*corev1.Pod
	for _, p := range pods {
		if isPodTerminated(p) {
			done = append(done, p)
		}
	}
	if len(done) <= threshold {
		return nil
	}
	sortForGC(done)
	return done[:len(done)-threshold]
}

// sortForGC orders pods as upstream's byEvictionAndCreationTimestamp.
func sortForGC(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		ei := pods[i].Status.Phase == corev1.PodFailed && pods[i].Status.Reason == evictedReason
		ej := pods[j].Status.Phase == corev1.PodFailed && pods[j].Status.Reason == evictedReason
		if ei != ej {
			return ei
		}
		if pods[i].CreationTimestamp.Equal(&pods[j].CreationTimestamp) {
			return pods[i].Name < pods[j].Name
		}
		return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp)
	})
}

// terminatingOutOfService is the pods being deleted on a node that is
// not Ready and has the out-of-service taint (an administrator's word
// that the node is down for good).
func (c *PodGCController) terminatingOutOfService(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil || p.Spec.NodeName == "" {
			continue
		}
		node, err := c.nodeLister.Get(p.Spec.NodeName)
		if err != nil {
			continue
		}
		ready := readyCondition(&node.Status)
		if (ready == nil || ready.Status != corev1.ConditionTrue) && hasTaintKey(node.Spec.Taints, corev1.TaintNodeOutOfService) {
			out = append(out, p)
		}
	}
	sortForGC(out)
	return out
}

func hasTaintKey(taints []corev1.Taint, key string) bool {
	for _, t := range taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// orphaned is the pods bound to nodes that have been gone for the
// quarantine: a missing node is queued for that long, then checked
// against the API server (the informer may lag).
func (c *PodGCController) orphaned(ctx context.Context, pods []*corev1.Pod, nodes []*corev1.Node) []*corev1.Pod {
	exists := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		exists[n.Name] = true
	}
	for _, p := range pods {
		if p.Spec.NodeName != "" && !exists[p.Spec.NodeName] {
			c.nodeQueue.AddAfter(p.Spec.NodeName, c.quarantine)
		}
	}
	deleted := map[string]bool{}
	for c.nodeQueue.Len() > 0 {
		name, quit := c.nodeQueue.Get()
		if quit {
			return nil
		}
		if !exists[name] {
			_, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			deleted[name] = apierrors.IsNotFound(err)
		}
		c.nodeQueue.Done(name)
	}
	var out []*corev1.Pod
	for _, p := range pods {
		if deleted[p.Spec.NodeName] {
			out = append(out, p)
		}
	}
	return out
}

// unscheduledTerminating is the pods being deleted that no node runs.
func unscheduledTerminating(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Spec.NodeName == "" {
			out = append(out, p)
		}
	}
	return out
}

// markFailedAndDelete sets an unfinished pod's phase to Failed (with
// cond, if given) by a status patch, then deletes it with a grace period
// of 0, as upstream's markFailedAndDeletePodWithCondition.
func (c *PodGCController) markFailedAndDelete(ctx context.Context, pod *corev1.Pod, cond *corev1.PodCondition, writes *writeLog) error {
	pods := c.client.CoreV1().Pods(pod.Namespace)
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		status := pod.Status.DeepCopy()
		status.Phase, status.ObservedGeneration = corev1.PodFailed, pod.Generation
		if cond != nil {
			cc := *cond
			cc.ObservedGeneration = pod.Generation
			setPodCondition(status, cc)
		}
		patch, err := podStatusPatch(pod, status)
		if err != nil {
			return err
		}
		_, err = pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		writes.add(fmt.Sprintf("PATCH pods/%s/status -n %s (phase Failed) → %s", pod.Name, pod.Namespace, statusWord(err)))
		if err != nil {
			return err
		}
	}
	zero := int64(0)
	err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	writes.add(fmt.Sprintf("DELETE pods/%s -n %s (gracePeriodSeconds 0) → %s", pod.Name, pod.Namespace, statusWord(err)))
	return err
}

func podCount(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}
