package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// VolumeBindingName is the name of the VolumeBinding plugin.
const VolumeBindingName = "VolumeBinding"

// ErrReasonUnboundImmediatePVC is VolumeBinding's reason for a pod whose
// claims are not bound yet (upstream's, for claims in Immediate binding
// mode).
const ErrReasonUnboundImmediatePVC = "pod has unbound immediate PersistentVolumeClaims"

// VolumeBinding is the part of kube-scheduler's VolumeBinding plugin
// (pkg/scheduler/framework/plugins/volumebinding) that a cluster without
// PersistentVolumes or StorageClasses uses: its PreFilter. A pod whose
// PersistentVolumeClaim (a persistentVolumeClaim volume, or the claim
// <pod>-<volume> of an ephemeral volume) does not exist or is being
// deleted is rejected with upstream's error; a pod with a claim not
// bound yet waits, "pod has unbound immediate PersistentVolumeClaims",
// until a change of a claim moves it back to the active queue. kubesim
// serves no StorageClasses yet, so every claim binds in Immediate mode
// (upstream's IsDelayBindingMode, for a claim without a class or whose
// class does not exist) and nothing binds it: the pod stays Pending, as
// on a cluster with no volume provisioner. Upstream's Filter, Reserve
// and PreBind (a bound volume's node affinity, finding and binding
// volumes for WaitForFirstConsumer) need PersistentVolumes, which
// kubesim does not serve: they are not run.
type VolumeBinding struct {
	// claims reads the claims; nil: none exists.
	claims corelisters.PersistentVolumeClaimLister
}

var (
	_ PreFilterPlugin   = (*VolumeBinding)(nil)
	_ FilterPlugin      = (*VolumeBinding)(nil)
	_ EnqueueExtensions = (*VolumeBinding)(nil)
)

// Name returns VolumeBindingName.
func (*VolumeBinding) Name() string { return VolumeBindingName }

// PreFilter skips a pod without claims, rejects one whose claim is
// missing or being deleted (unresolvable until the claims change) and
// one with a claim not bound.
func (pl *VolumeBinding) PreFilter(_ context.Context, _ *CycleState, pod *corev1.Pod) *Status {
	names := podClaimNames(pod)
	if len(names) == 0 {
		return NewStatus(Skip)
	}
	unbound := false
	for _, name := range names {
		pvc, err := pl.claim(pod.Namespace, name)
		switch {
		case apierrors.IsNotFound(err):
			return NewStatus(UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", name))
		case err != nil:
			return AsStatus(err)
		case pvc.DeletionTimestamp != nil:
			return NewStatus(UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", name))
		case pvc.Spec.VolumeName == "" || pvc.Status.Phase != corev1.ClaimBound:
			unbound = true
		}
	}
	if unbound {
		return NewStatus(UnschedulableAndUnresolvable, ErrReasonUnboundImmediatePVC)
	}
	return nil
}

// Filter lets every node pass: the checks upstream makes there are of
// PersistentVolumes (see VolumeBinding).
func (*VolumeBinding) Filter(context.Context, *CycleState, *corev1.Pod, *NodeInfo) *Status {
	return nil
}

// EventsToRegister: a claim added or changed (bound) may let the pod go.
func (*VolumeBinding) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{{Resource: PersistentVolumeClaimResource, ActionType: ActionAdd | ActionUpdate}}
}

// claim returns the claim namespace/name.
func (pl *VolumeBinding) claim(namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	if pl.claims == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("persistentvolumeclaims"), name)
	}
	return pl.claims.PersistentVolumeClaims(namespace).Get(name)
}

// podClaimNames are the claims pod's volumes use: a persistentVolumeClaim
// volume's claimName, an ephemeral volume's <pod>-<volume>.
func podClaimNames(pod *corev1.Pod) []string {
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
