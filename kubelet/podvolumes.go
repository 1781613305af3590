package kubelet

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// This file is the kubelet's wait for a pod's ConfigMap and Secret
// volumes before its sandbox, as upstream's syncPod waits for the volume
// manager (WaitForAttachAndMount) before the runtime's SyncPod: a volume
// whose ConfigMap or Secret (or one of the keys its items name) is
// missing, and not optional, cannot be set up. The pod then stays
// ContainerCreating, with no sandbox and no IP, and a FailedMount event
// is recorded at each failed attempt, worded as the volume manager's
// ("MountVolume.SetUp failed for volume "cfg" : configmap "cfg" not
// found"); attempts back off as the operation executor's (500 ms
// doubling to 2m2s, divided by the speed). Projected volumes (the
// service account's kube-api-access) are not checked.

// ReasonFailedMount is the kubelet's event reason for a volume that could
// not be set up.
const ReasonFailedMount = "FailedMount"

// Mount retry back-off, as upstream's exponentialbackoff.
const (
	mountRetryInitial = 500 * time.Millisecond
	mountRetryMax     = 2*time.Minute + 2*time.Second
)

// mountState is the pod machine's record of its failed volume set-ups.
type mountState struct {
	retryAt time.Time     // next attempt; zero: none failed
	wait    time.Duration // the back-off after the next failure
}

// setUpVolumes checks the pod's ConfigMap and Secret volumes before its
// sandbox. It reports whether they are ready; if not, the FailedMount
// events of this attempt (none while backing off).
func (m *podMachine) setUpVolumes(now time.Time) ([]output, bool) {
	if m.rt.objects == nil {
		return nil, true
	}
	if now.Before(m.mounts.retryAt) {
		return nil, false
	}
	var out []output
	for i := range m.pod.Spec.Volumes {
		v := &m.pod.Spec.Volumes[i]
		if err := volumeError(m.rt.objects, m.pod.Namespace, v); err != nil {
			out = append(out, output{eventType: corev1.EventTypeWarning, reason: ReasonFailedMount,
				message: fmt.Sprintf("MountVolume.SetUp failed for volume %q : %s", v.Name, errText(err))})
		}
	}
	if len(out) == 0 {
		m.mounts = mountState{}
		return nil, true
	}
	if m.mounts.wait == 0 {
		m.mounts.wait = mountRetryInitial
	}
	m.mounts.retryAt = now.Add(max(m.scale.backOff(m.mounts.wait), minConfigRetry))
	m.mounts.wait = min(2*m.mounts.wait, mountRetryMax)
	return out, false
}

// errText is an error's message (an API status's message).
func errText(err error) string {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status().Message
	}
	return err.Error()
}

// volumeError is why v cannot be set up, in the volume plugins' words,
// or nil.
func volumeError(objects objectLookup, namespace string, v *corev1.Volume) error {
	switch {
	case v.ConfigMap != nil:
		cm, err := objects.configMap(namespace, v.ConfigMap.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(v.ConfigMap.Optional) {
				return nil
			}
			return err
		}
		for _, item := range v.ConfigMap.Items {
			_, inData := cm.Data[item.Key]
			_, inBinary := cm.BinaryData[item.Key]
			if !inData && !inBinary && !optional(v.ConfigMap.Optional) {
				return fmt.Errorf("configmap references non-existent config key: %s", item.Key)
			}
		}
	case v.Secret != nil:
		s, err := objects.secret(namespace, v.Secret.SecretName)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(v.Secret.Optional) {
				return nil
			}
			return err
		}
		for _, item := range v.Secret.Items {
			if _, ok := s.Data[item.Key]; !ok && !optional(v.Secret.Optional) {
				return fmt.Errorf("references non-existent secret key: %s", item.Key)
			}
		}
	}
	return nil
}
