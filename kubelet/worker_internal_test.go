package kubelet

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWorkerHasItsPodFromTheStart: podChanged starts a worker's goroutine
// before it hands the worker the pod (update), so run may take before
// update: the worker must already hold the pod. (Without it, run
// dereferenced a nil pod and the whole process died: seen after a
// restart, when a kubelet's informer delivers many pods at once.)
func TestWorkerHasItsPodFromTheStart(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u1"}}
	w := newPodWorker(nil, pod)
	got, fresh, removed := w.take()
	if got != pod || !fresh || removed {
		t.Errorf("take before update = %v, fresh %v, removed %v; want the pod, fresh", got, fresh, removed)
	}
}
