package scheduler

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
)

// binder writes the scheduler's decision.
type binder interface {
	// Bind assigns pod to node.
	Bind(ctx context.Context, pod *corev1.Pod, node string) error
}

// apiBinder binds through the API: POST pods/<name>/binding with the
// pod's UID, so that a pod deleted and created again under the same name
// is not bound by mistake (409 Conflict).
type apiBinder struct{ client kubernetes.Interface }

func (b apiBinder) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	return b.client.CoreV1().Pods(pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
}

// patchPodStatus sends the difference between the pod's status and
// newStatus as a strategic merge patch of pods/<name>/status (conditions
// merge by type). Nothing is sent when they do not differ.
func patchPodStatus(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, newStatus *corev1.PodStatus) error {
	oldData, err := json.Marshal(corev1.Pod{Status: pod.Status})
	if err != nil {
		return err
	}
	newData, err := json.Marshal(corev1.Pod{Status: *newStatus})
	if err != nil {
		return err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, &corev1.Pod{})
	if err != nil {
		return fmt.Errorf("patch for pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if string(patch) == "{}" {
		return nil
	}
	_, err = client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}

// setPodCondition puts cond into status, replacing the condition of the
// same type. The transition time stays when the status (True/False) does
// not change. It reports whether anything changed.
func setPodCondition(status *corev1.PodStatus, cond corev1.PodCondition) bool {
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		// As kube-scheduler, a new observedGeneration alone is no change.
		same := old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message &&
			old.LastProbeTime.Equal(&cond.LastProbeTime) && old.LastTransitionTime.Equal(&cond.LastTransitionTime)
		status.Conditions[i] = cond
		return !same
	}
	status.Conditions = append(status.Conditions, cond)
	return true
}
