package controllers

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// This file holds what the endpoints and endpointslice controllers share
// about pods, as upstream's k8s.io/endpointslice/util does: which pod
// changes matter to a Service's endpoints, which Services a pod change
// must resync, and which pods are endpoints at all.

// podEndpointsChange is what an informer event on a pod means to the
// Services selecting it (upstream's PodProjectionKey): the pod's labels
// now and, when they changed, before; podChanged when a field the
// endpoints show changed (deletionTimestamp, readiness, IPs).
type podEndpointsChange struct {
	namespace  string
	labels     labels.Set
	oldLabels  labels.Set // set only when the labels (or hostname, subdomain) changed
	podChanged bool
}

// podChangeFor tells what the pod event from old to cur (either nil for
// an add or a delete) means to the Services, nil when nothing: a resync,
// or a change no endpoint shows.
func podChangeFor(oldObj, curObj any) *podEndpointsChange {
	old, cur := podOrTombstone(oldObj), podOrTombstone(curObj)
	switch {
	case old == nil && cur == nil:
		return nil
	case old == nil:
		return &podEndpointsChange{namespace: cur.Namespace, labels: labels.Set(cur.Labels)}
	case cur == nil:
		return &podEndpointsChange{namespace: old.Namespace, labels: labels.Set(old.Labels)}
	case old.ResourceVersion == cur.ResourceVersion:
		return nil
	}
	podChanged, labelsChanged := podEndpointsChanged(old, cur)
	switch {
	case !podChanged && !labelsChanged:
		return nil
	case !labelsChanged:
		return &podEndpointsChange{namespace: cur.Namespace, labels: labels.Set(cur.Labels)}
	}
	return &podEndpointsChange{namespace: cur.Namespace, labels: labels.Set(cur.Labels),
		oldLabels: labels.Set(old.Labels), podChanged: podChanged}
}

// podEndpointsChanged reports whether a field the endpoints show changed,
// and whether the labels (or hostname and subdomain) did.
func podEndpointsChanged(old, cur *corev1.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !reflect.DeepEqual(old.Labels, cur.Labels) ||
		old.Spec.Hostname != cur.Spec.Hostname || old.Spec.Subdomain != cur.Spec.Subdomain
	if !old.DeletionTimestamp.Equal(cur.DeletionTimestamp) || isPodReady(old) != isPodReady(cur) {
		return true, labelsChanged
	}
	if len(old.Status.PodIPs) != len(cur.Status.PodIPs) {
		return true, labelsChanged
	}
	for i := range old.Status.PodIPs {
		if old.Status.PodIPs[i].IP != cur.Status.PodIPs[i].IP {
			return true, labelsChanged
		}
	}
	return false, labelsChanged
}

// servicesToSync are the keys of the Services whose endpoints change
// with ch: those selecting the pod now, and with changed labels those it
// left or joined (all of both when a shown field changed too).
func servicesToSync(lister corelisters.ServiceLister, ch *podEndpointsChange) (sets.Set[string], error) {
	now, err := servicesSelecting(lister, ch.namespace, ch.labels)
	if err != nil || ch.oldLabels == nil {
		return now, err
	}
	before, err := servicesSelecting(lister, ch.namespace, ch.oldLabels)
	if err != nil {
		return nil, err
	}
	if ch.podChanged {
		return now.Union(before), nil
	}
	return now.Difference(before).Union(before.Difference(now)), nil
}

// servicesSelecting are the keys of the Services in namespace whose
// selector matches podLabels (a Service without a selector selects none).
func servicesSelecting(lister corelisters.ServiceLister, namespace string, podLabels labels.Set) (sets.Set[string], error) {
	services, err := lister.Services(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := sets.New[string]()
	for _, svc := range services {
		if svc.Spec.Selector == nil || !labels.ValidatedSetSelector(svc.Spec.Selector).Matches(podLabels) {
			continue
		}
		if key, err := cache.MetaNamespaceKeyFunc(svc); err == nil {
			out.Insert(key)
		}
	}
	return out, nil
}

// podOrTombstone is obj as a pod (nil for nil or anything else).
func podOrTombstone(obj any) *corev1.Pod {
	if obj == nil {
		return nil
	}
	if p, err := podFromDeleted(obj); err == nil {
		return p
	}
	return nil
}

// shouldPodBeInEndpoints: a pod is an endpoint once it has an IP, until
// it has finished (Succeeded or Failed); one being deleted only if
// includeTerminating (upstream's ShouldPodBeInEndpoints).
func shouldPodBeInEndpoints(p *corev1.Pod, includeTerminating bool) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	if p.Status.PodIP == "" && len(p.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || p.DeletionTimestamp == nil
}

// shouldSetHostname: the pod's hostname goes into the endpoint when its
// subdomain is the Service's name (the headless Service of a
// StatefulSet).
func shouldSetHostname(p *corev1.Pod, svc *corev1.Service) bool {
	return p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && p.Namespace == svc.Namespace
}

// isServiceIPSet: the Service has a cluster IP (it is not headless).
func isServiceIPSet(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP != corev1.ClusterIPNone && svc.Spec.ClusterIP != ""
}

// queueServicesOfPod queues, on queue, the Services whose endpoints a
// pod's change (old to cur, the informer event verb) touches, noting the
// pod's event as why each was queued: the pod handler of the endpoints
// and endpointslice controllers.
func queueServicesOfPod(lister corelisters.ServiceLister, why *eventTriggers, queue workqueue.TypedRateLimitingInterface[string], old, cur any, verb string) {
	ch := podChangeFor(old, cur)
	if ch == nil {
		return
	}
	keys, err := servicesToSync(lister, ch)
	if err != nil {
		return
	}
	pod := podOrTombstone(cur)
	if pod == nil {
		pod = podOrTombstone(old)
	}
	for key := range keys {
		why.note(key, triggerOf(verb, pod, "v1", "Pod"))
		queue.Add(key)
	}
}
