package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// Upstream's volume binder waits this long for the claims of a pod to be
// bound (--bind-timeout-seconds of its VolumeBinding args, 600), asking
// every second.
const (
	volumeBindTimeout = 600 * time.Second
	volumeBindPoll    = time.Second
)

// notProvisioner is the provisioner of a class that provisions nothing.
const notProvisioner = "kubernetes.io/no-provisioner"

// matchVolumes finds an available volume on node for each of claims, as
// upstream's findMatchingVolumes: bound maps a claim (namespace/name) to
// its volume; toProvision are the claims without one.
func (pl *VolumeBinding) matchVolumes(claims []*corev1.PersistentVolumeClaim, node *corev1.Node) (bound map[*corev1.PersistentVolumeClaim]*corev1.PersistentVolume, toProvision []*corev1.PersistentVolumeClaim) {
	bound = map[*corev1.PersistentVolumeClaim]*corev1.PersistentVolume{}
	var all []*corev1.PersistentVolume
	if pl.volumes != nil {
		all, _ = pl.volumes.List(labels.Everything())
	}
	chosen := map[string]*corev1.PersistentVolume{}
	for _, pvc := range claims {
		class := volumehelpers.GetPersistentVolumeClaimClass(pvc)
		var candidates []*corev1.PersistentVolume
		for _, pv := range all {
			if volumehelpers.GetPersistentVolumeClass(pv) == class {
				candidates = append(candidates, pv)
			}
		}
		pv, err := volumehelpers.FindMatchingVolume(pvc, candidates, node, chosen, true, false)
		if err != nil || pv == nil {
			toProvision = append(toProvision, pvc)
			continue
		}
		chosen[pv.Name] = pv
		bound[pvc] = pv
	}
	return bound, toProvision
}

// canProvision reports whether each of claims may be provisioned on node
// (upstream's checkVolumeProvisions): it was not given to another node,
// and its class exists, has a provisioner and admits the node by its
// allowedTopologies.
func (pl *VolumeBinding) canProvision(claims []*corev1.PersistentVolumeClaim, node *corev1.Node) bool {
	for _, pvc := range claims {
		if selected, ok := pvc.Annotations[volumehelpers.AnnSelectedNode]; ok && selected != node.Name {
			return false
		}
		if pl.classes == nil {
			return false
		}
		class, err := pl.classes.Get(volumehelpers.GetPersistentVolumeClaimClass(pvc))
		if err != nil || class.Provisioner == notProvisioner {
			return false
		}
		if !topologyAdmits(class.AllowedTopologies, node.Labels) {
			return false
		}
	}
	return true
}

// topologyAdmits reports whether labels match one of terms (no terms: any).
func topologyAdmits(terms []corev1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, term := range terms {
		ok := true
		for _, req := range term.MatchLabelExpressions {
			if v, has := nodeLabels[req.Key]; !has || !slices.Contains(req.Values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// PreBind binds the pod's WaitForFirstConsumer claims for host, as
// upstream's BindPodVolumes: a claim with a matching volume on host gets
// it (the volume's claimRef is written, for the persistentvolume-binder
// to complete), one without gets the annotation
// volume.kubernetes.io/selected-node=<host> (its provisioner makes the
// volume there); then it waits, up to 600 s, until every such claim is
// bound (pv.kubernetes.io/bind-completed). A claim whose annotation was
// taken away (its provisioner gave up on the node) fails the binding, so
// that the pod is scheduled again.
func (pl *VolumeBinding) PreBind(ctx context.Context, pod *corev1.Pod, host string) *Status {
	names := podClaimNames(pod)
	if len(names) == 0 {
		return nil
	}
	claims, st := pl.podClaims(pod, names)
	if st != nil {
		return st
	}
	if len(claims.delayed) == 0 {
		return nil
	}
	if pl.client == nil {
		return AsStatus(fmt.Errorf("binding volumes: no client"))
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: host}}
	if n, err := pl.client.CoreV1().Nodes().Get(ctx, host, metav1.GetOptions{ResourceVersion: "0"}); err == nil {
		node = n
	}
	volumes, toProvision := pl.matchVolumes(claims.delayed, node)
	for pvc, pv := range volumes {
		bound, _, err := volumehelpers.GetBindVolumeToClaim(pv, pvc)
		if err == nil {
			_, err = pl.client.CoreV1().PersistentVolumes().Update(ctx, bound, metav1.UpdateOptions{})
		}
		if err != nil {
			return AsStatus(fmt.Errorf("binding volumes: %w", err))
		}
	}
	for _, pvc := range toProvision {
		if pvc.Annotations[volumehelpers.AnnSelectedNode] == host {
			continue
		}
		c := pvc.DeepCopy()
		metav1.SetMetaDataAnnotation(&c.ObjectMeta, volumehelpers.AnnSelectedNode, host)
		if _, err := pl.client.CoreV1().PersistentVolumeClaims(c.Namespace).Update(ctx, c, metav1.UpdateOptions{}); err != nil {
			return AsStatus(fmt.Errorf("binding volumes: %w", err))
		}
	}
	return pl.waitBound(ctx, claims.delayed)
}

// waitBound waits until each of claims is bound, as upstream's
// checkBindings, or fails.
func (pl *VolumeBinding) waitBound(ctx context.Context, claims []*corev1.PersistentVolumeClaim) *Status {
	var failed error
	err := wait.PollUntilContextTimeout(ctx, volumeBindPoll, volumeBindTimeout, true, func(context.Context) (bool, error) {
		for _, c := range claims {
			pvc, err := pl.claim(c.Namespace, c.Name)
			if err != nil {
				failed = fmt.Errorf("failed to check binding: %w", err)
				return false, failed
			}
			if pvc.Spec.VolumeName == "" {
				if _, ok := pvc.Annotations[volumehelpers.AnnSelectedNode]; !ok {
					failed = fmt.Errorf("selectedNode annotation reset for PVC %q", pvc.Name)
					return false, failed
				}
				return false, nil
			}
			if !metav1.HasAnnotation(pvc.ObjectMeta, volumehelpers.AnnBindCompleted) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		if failed == nil {
			failed = err
		}
		return AsStatus(fmt.Errorf("binding volumes: %w", failed))
	}
	return nil
}
