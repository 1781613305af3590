package controllers

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// podReadyCondition returns the pod's Ready condition, or nil.
func podReadyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// isPodReady reports whether the pod's Ready condition is True.
func isPodReady(p *corev1.Pod) bool {
	c := podReadyCondition(p)
	return c != nil && c.Status == corev1.ConditionTrue
}

// isPodAvailable reports whether the pod has been ready for at least
// minReadySeconds at now, as upstream's podutil.IsPodAvailable.
func isPodAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	c := podReadyCondition(p)
	if c == nil || c.Status != corev1.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	need := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(need).Before(now)
}

// isPodActive reports whether the pod counts towards a ReplicaSet: not
// finished and not being deleted (upstream's IsPodActive).
func isPodActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

// activePods keeps the active pods of pods.
func activePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if isPodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// podKey is the pod's namespace/name, the key deletions are tracked by.
func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// controllerRef returns an ownerReference marking owner, of gvk, as the
// controller of what it owns: controller and blockOwnerDeletion true, as
// upstream's metav1.NewControllerRef.
func controllerRef(owner metav1.Object, apiVersion, kind string) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: owner.GetName(), UID: owner.GetUID(),
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// podFromTemplate is the pod a controller named controllerName creates
// from template: its labels, annotations, finalizers and spec, the name
// prefix "<controllerName>-" (the API server adds five random
// characters), and ref as its only ownerReference.
func podFromTemplate(template *corev1.PodTemplateSpec, namespace, controllerName string, ref *metav1.OwnerReference) *corev1.Pod {
	prefix := controllerName + "-"
	if len(validation.NameIsDNSSubdomain(prefix, true)) != 0 {
		prefix = controllerName
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:    namespace,
		GenerateName: prefix,
		Labels:       copyMap(template.Labels),
		Annotations:  copyMap(template.Annotations),
		Finalizers:   append([]string(nil), template.Finalizers...),
	}}
	if ref != nil {
		pod.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	pod.Spec = *template.Spec.DeepCopy()
	return pod
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// podFromDeleted returns the pod of an informer's delete notification,
// which may be a tombstone.
func podFromDeleted(obj any) (*corev1.Pod, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return o, nil
	case cache.DeletedFinalStateUnknown:
		if p, ok := o.Obj.(*corev1.Pod); ok {
			return p, nil
		}
		return nil, fmt.Errorf("controllers: tombstone holds %T, not a pod", o.Obj)
	}
	return nil, fmt.Errorf("controllers: deleted object is %T, not a pod", obj)
}
