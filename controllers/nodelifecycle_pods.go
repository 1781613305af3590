package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// markPodsNotReady sets the Ready condition of the node's pods to False
// (a new lastTransitionTime, reason and message kept), with a Warning
// event NodeNotReady "Node is not ready" for each, as upstream's
// MarkPodsNotReady: the endpoints controllers then take them out of the
// Services' ready endpoints, though their containers may well run on.
func (c *NodeLifecycleController) markPodsNotReady(ctx context.Context, pods []*corev1.Pod, nodeName string, writes *writeLog) error {
	var errs []error
	for _, p := range pods {
		if p.Spec.NodeName != nodeName {
			continue
		}
		cond := podReadyCondition(p)
		if cond == nil || cond.Status == corev1.ConditionFalse {
			continue
		}
		pod := p.DeepCopy()
		cond = podReadyCondition(pod)
		cond.Status, cond.LastTransitionTime = corev1.ConditionFalse, metav1.Now()
		_, err := c.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		writes.add(fmt.Sprintf("PUT pods/%s/status -n %s (Ready=False) → %s", pod.Name, pod.Namespace, statusWord(err)))
		if err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
			continue
		}
		c.recorder.Event(pod, corev1.EventTypeWarning, "NodeNotReady", "Node is not ready")
	}
	return utilerrors.NewAggregate(errs)
}

// processNextPod marks a pod just bound to an unhealthy node not ready
// (upstream's processPod); false once the queue is shut down.
func (c *NodeLifecycleController) processNextPod(ctx context.Context) bool {
	key, quit := c.podQueue.Get()
	if quit {
		return false
	}
	defer c.podQueue.Done(key)
	ns, name, err := splitKey(key)
	if err != nil {
		return true
	}
	pod, err := c.podLister.Pods(ns).Get(name)
	if err != nil {
		return true // deleted: nothing to mark
	}
	nh := c.health.get(pod.Spec.NodeName)
	if nh == nil {
		return true // not seen yet: the monitor pass will see to it
	}
	if _, err := c.nodeLister.Get(pod.Spec.NodeName); err != nil {
		c.podQueue.AddRateLimited(key)
		return true
	}
	ready := readyCondition(nh.status)
	if ready == nil || ready.Status == corev1.ConditionTrue {
		return true
	}
	writes := newWriteLog()
	if err := c.markPodsNotReady(ctx, []*corev1.Pod{pod}, pod.Spec.NodeName, writes); err != nil {
		c.podQueue.AddRateLimited(key)
		return true
	}
	c.podQueue.Forget(key)
	if len(writes.lines()) > 0 {
		c.observe("pod "+key+" on "+pod.Spec.NodeName, key, "its node is not Ready: pod Ready=False", writes)
	}
	return true
}
