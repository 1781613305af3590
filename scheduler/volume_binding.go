package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// VolumeBindingName is the name of the VolumeBinding plugin.
const VolumeBindingName = "VolumeBinding"

// VolumeBinding's reasons, upstream's words.
const (
	// ErrReasonUnboundImmediatePVC: a claim in Immediate binding mode is
	// not bound yet.
	ErrReasonUnboundImmediatePVC = "pod has unbound immediate PersistentVolumeClaims"
	// ErrReasonBindConflict: a WaitForFirstConsumer claim finds no
	// volume on the node and cannot be provisioned there.
	ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind"
	// ErrReasonNodeConflict: a bound volume's node affinity excludes the
	// node.
	ErrReasonNodeConflict = "node(s) had volume node affinity conflict"
	// ErrReasonPVNotExist: a claim is bound to a volume that is gone.
	ErrReasonPVNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

// volumeBindingStateKey holds a pod's claims in the CycleState.
const volumeBindingStateKey = "PreFilter" + VolumeBindingName

// VolumeBinding is kube-scheduler's VolumeBinding plugin
// (pkg/scheduler/framework/plugins/volumebinding), without the
// CSIStorageCapacity check and the scoring of its alpha feature:
//   - PreFilter: a pod whose PersistentVolumeClaim (a
//     persistentVolumeClaim volume, or the claim <pod>-<volume> of an
//     ephemeral volume) does not exist or is being deleted is rejected
//     with upstream's error; a pod with a claim not bound in Immediate
//     mode waits, "pod has unbound immediate PersistentVolumeClaims".
//     A claim not bound whose class binds WaitForFirstConsumer is left to
//     the Filter and PreBind.
//   - Filter: a node is rejected when a bound claim's volume is gone or
//     its node affinity excludes the node, or when a WaitForFirstConsumer
//     claim finds neither an available volume there (upstream's
//     FindMatchingVolume) nor a class that may provision there (its
//     provisioner is not kubernetes.io/no-provisioner, its
//     allowedTopologies admit the node, and the claim was not already
//     given to another node).
//   - PreBind (binding cycle, before the pod's binding): each such claim
//     gets its volume (the volume's claimRef is written) or, to be
//     provisioned, the annotation volume.kubernetes.io/selected-node;
//     then it waits until the persistentvolume-binder has bound them all.
//
// It is safe for concurrent use.
type VolumeBinding struct {
	// claims, volumes and classes read the cluster's; nil claims: none
	// exists; nil volumes or classes: none exists (every claim binds in
	// Immediate mode).
	claims  corelisters.PersistentVolumeClaimLister
	volumes corelisters.PersistentVolumeLister
	classes storagelisters.StorageClassLister
	// client writes claims and volumes in PreBind (nil: PreBind fails a
	// pod that has claims to bind).
	client kubernetes.Interface
}

var (
	_ PreFilterPlugin   = (*VolumeBinding)(nil)
	_ FilterPlugin      = (*VolumeBinding)(nil)
	_ PreBindPlugin     = (*VolumeBinding)(nil)
	_ EnqueueExtensions = (*VolumeBinding)(nil)
)

// podVolumeClaims are a pod's claims, as PreFilter sorted them.
type podVolumeClaims struct {
	bound   []*corev1.PersistentVolumeClaim
	delayed []*corev1.PersistentVolumeClaim // not bound, WaitForFirstConsumer
}

// Name returns VolumeBindingName.
func (*VolumeBinding) Name() string { return VolumeBindingName }

// PreFilter skips a pod without claims, rejects one whose claim is
// missing or being deleted (unresolvable until the claims change) and
// one with a claim in Immediate mode not bound; it keeps the rest for
// the Filter.
func (pl *VolumeBinding) PreFilter(_ context.Context, state *CycleState, pod *corev1.Pod) *Status {
	names := podClaimNames(pod)
	if len(names) == 0 {
		return NewStatus(Skip)
	}
	claims, st := pl.podClaims(pod, names)
	if st != nil {
		return st
	}
	if state != nil {
		state.Write(volumeBindingStateKey, claims)
	}
	return nil
}

// podClaims reads and sorts the claims names of pod.
func (pl *VolumeBinding) podClaims(pod *corev1.Pod, names []string) (*podVolumeClaims, *Status) {
	out := &podVolumeClaims{}
	unbound := false
	for _, name := range names {
		pvc, err := pl.claim(pod.Namespace, name)
		switch {
		case apierrors.IsNotFound(err):
			return nil, NewStatus(UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", name))
		case err != nil:
			return nil, AsStatus(err)
		case pvc.DeletionTimestamp != nil:
			return nil, NewStatus(UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", name))
		case pvc.Spec.VolumeName != "" && pvc.Status.Phase == corev1.ClaimBound:
			out.bound = append(out.bound, pvc)
		case pl.delayed(pvc):
			out.delayed = append(out.delayed, pvc)
		default:
			unbound = true
		}
	}
	if unbound {
		return nil, NewStatus(UnschedulableAndUnresolvable, ErrReasonUnboundImmediatePVC)
	}
	return out, nil
}

// delayed reports whether pvc's class binds WaitForFirstConsumer
// (upstream's IsDelayBindingMode; a class that is missing, or unknown
// here, binds Immediate).
func (pl *VolumeBinding) delayed(pvc *corev1.PersistentVolumeClaim) bool {
	if pl.classes == nil {
		return false
	}
	d, err := volumehelpers.IsDelayBindingMode(pvc, pl.classes)
	return err == nil && d
}

// Filter checks the pod's claims against one node (see VolumeBinding).
func (pl *VolumeBinding) Filter(_ context.Context, state *CycleState, _ *corev1.Pod, nodeInfo *NodeInfo) *Status {
	v, ok := state.Read(volumeBindingStateKey)
	if !ok {
		return nil
	}
	claims := v.(*podVolumeClaims)
	node := nodeInfo.Node()
	for _, pvc := range claims.bound {
		if pl.volumes == nil {
			return NewStatus(UnschedulableAndUnresolvable, ErrReasonPVNotExist)
		}
		pv, err := pl.volumes.Get(pvc.Spec.VolumeName)
		if err != nil {
			return NewStatus(UnschedulableAndUnresolvable, ErrReasonPVNotExist)
		}
		if volumehelpers.CheckNodeAffinity(pv, node.Labels) != nil {
			return NewStatus(UnschedulableAndUnresolvable, ErrReasonNodeConflict)
		}
	}
	if len(claims.delayed) == 0 {
		return nil
	}
	if _, toProvision := pl.matchVolumes(claims.delayed, node); !pl.canProvision(toProvision, node) {
		return NewStatus(Unschedulable, ErrReasonBindConflict)
	}
	return nil
}

// EventsToRegister: a claim, a volume or a class added or changed may
// let the pod go.
func (*VolumeBinding) EventsToRegister() []ClusterEvent {
	return []ClusterEvent{
		{Resource: PersistentVolumeClaimResource, ActionType: ActionAdd | ActionUpdate},
		{Resource: PersistentVolumeResource, ActionType: ActionAdd | ActionUpdate},
		{Resource: StorageClassResource, ActionType: ActionAdd | ActionUpdate},
	}
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
