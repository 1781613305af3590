package kubelet

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// volumeRetryInterval is how often the volume manager looks again at
// volumes a pod waits for (podAttachAndMountRetryInterval, 300 ms).
const volumeRetryInterval = 300 * time.Millisecond

// podClaims are the claims pod's volumes use: a persistentVolumeClaim
// volume's claimName, an ephemeral volume's <pod>-<volume>.
func podClaims(pod *corev1.Pod) []string {
	var names []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			names = append(names, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			names = append(names, pod.Name+"-"+v.Name)
		}
	}
	return names
}

// waitVolumes waits, before the pod's sandbox and containers, until
// each PersistentVolumeClaim the pod uses is bound to a volume, as the
// kubelet's volume manager waits for a pod's volumes to be attached and
// mounted (WaitForAttachAndMount) before its containers start. kubesim
// mounts nothing: a bound claim counts as mounted. It returns false when
// the worker is to stop (ctx done, or the pod gone); a pod being deleted
// stops the wait, and the worker goes on to finish it.
func (w *podWorker) waitVolumes(ctx context.Context, pod *corev1.Pod) bool {
	names := podClaims(pod)
	if len(names) == 0 {
		return true
	}
	logger := klog.FromContext(ctx)
	for {
		if w.isRemoved() {
			return false
		}
		p, _, _ := w.take()
		if p.DeletionTimestamp != nil || w.claimsBound(ctx, p.Namespace, names) {
			w.mu.Lock()
			w.fresh = true // the loop's first sync sees the pod as it is now
			w.mu.Unlock()
			return true
		}
		logger.V(4).Info("Waiting for the pod's volumes", "claims", names)
		t := w.k.clock.NewTimer(volumeRetryInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-w.signal:
		case <-t.C():
		}
		t.Stop()
	}
}

// claimsBound reports whether every claim names in namespace is bound.
func (w *podWorker) claimsBound(ctx context.Context, namespace string, names []string) bool {
	for _, name := range names {
		pvc, err := w.k.cfg.Client.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil || pvc.Spec.VolumeName == "" || pvc.Status.Phase != corev1.ClaimBound {
			return false
		}
	}
	return true
}
