package controllers

import (
	"context"
	"errors"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/endpointslice"
	endpointsliceutil "k8s.io/endpointslice/util"

	"github.com/kubesim/kubesim/internal/flow"
)

// ReasonEndpointsChanged: a Service's Endpoints no longer list what its
// pods make of it; Target is the Service, Want the addresses written,
// Have how many of them are ready (both 0 when the Service is gone and
// its Endpoints are deleted).
const ReasonEndpointsChanged = flow.DecisionEndpointsChanged

// sync brings the Endpoints of the Service key in line with its pods; a
// Service gone takes its Endpoints with it.
func (c *EndpointsController) sync(ctx context.Context, key string) error {
	ns, name, err := splitKey(key)
	if err != nil {
		return nil
	}
	svc, err := c.svcLister.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		if _, err := c.epLister.Endpoints(ns).Get(name); err == nil {
			decide(ctx, Decision{Reason: ReasonEndpointsChanged, Target: name}) // the Service is gone
		}
		err = c.client.CoreV1().Endpoints(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.triggerTimes.DeleteService(ns, name)
		c.stale.forget(ns, name)
		return nil
	}
	if err != nil || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return err
	}
	pods, err := c.podLister.Pods(ns).List(labels.Set(svc.Spec.Selector).AsSelectorPreValidated())
	if err != nil {
		return err
	}
	trigger := c.triggerTimes.ComputeEndpointLastChangeTriggerTime(ns, svc, pods)
	subsets := repackSubsets(desiredSubsets(svc, pods))
	cur, err := c.epLister.Endpoints(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		cur = &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: svc.Name, Labels: svc.Labels}}
	case err != nil:
		return err
	case c.stale.isStale(cur):
		return errStaleEndpoints
	}
	if cur.ResourceVersion != "" && (sameSubsets(cur.Subsets, subsets) || sameSubsets(repackSubsets(cur.Subsets), subsets)) &&
		endpointsLabelsCorrect(cur.Labels, svc.Labels) && capacityAnnotationCorrect(cur) {
		return nil
	}
	return c.write(ctx, svc, cur, subsets, trigger)
}

// errStaleEndpoints: the informer still has the version the controller
// replaced; the sync is retried.
var errStaleEndpoints = errors.New("endpoints informer cache is out of date")

// desiredSubsets is one subset per pod and resolved Service port (one
// per pod with no ports for a headless Service without ports), before
// repacking.
func desiredSubsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	subsets := []corev1.EndpointSubset{}
	tolerate := svc.Spec.PublishNotReadyAddresses
	for _, pod := range pods {
		if !endpointsliceutil.ShouldPodBeInEndpoints(pod, tolerate) {
			continue
		}
		addr, ok := podEndpointAddress(svc, pod)
		if !ok {
			continue
		}
		ready := tolerate || isPodReady(pod)
		if len(svc.Spec.Ports) == 0 {
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				subsets = append(subsets, oneSubset(addr, nil, ready))
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			n, err := endpointslice.FindPort(pod, sp)
			if err != nil {
				continue
			}
			num := int32(n)
			port := corev1.EndpointPort{Name: sp.Name, Port: num, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}
			subsets = append(subsets, oneSubset(addr, &port, ready))
		}
	}
	return subsets
}

func oneSubset(addr corev1.EndpointAddress, port *corev1.EndpointPort, ready bool) corev1.EndpointSubset {
	s := corev1.EndpointSubset{Ports: []corev1.EndpointPort{}}
	if port != nil {
		s.Ports = append(s.Ports, *port)
	}
	if ready {
		s.Addresses = []corev1.EndpointAddress{addr}
	} else {
		s.NotReadyAddresses = []corev1.EndpointAddress{addr}
	}
	return s
}

// podEndpointAddress is the pod's address of the Service's first IP
// family (from ipFamilies, else its cluster IP, else the pod's IP).
func podEndpointAddress(svc *corev1.Service, pod *corev1.Pod) (corev1.EndpointAddress, bool) {
	wantV6 := false
	switch {
	case len(svc.Spec.IPFamilies) > 0:
		wantV6 = svc.Spec.IPFamilies[0] == corev1.IPv6Protocol
	case isServiceIPSet(svc):
		wantV6 = isIPv6(svc.Spec.ClusterIP)
	default:
		wantV6 = isIPv6(pod.Status.PodIP)
	}
	for _, pip := range pod.Status.PodIPs {
		if ip := net.ParseIP(pip.IP); ip != nil && (ip.To4() == nil) == wantV6 {
			addr := corev1.EndpointAddress{IP: ip.String(), NodeName: &pod.Spec.NodeName,
				TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}}
			if endpointsliceutil.ShouldSetHostname(pod, svc) {
				addr.Hostname = pod.Spec.Hostname
			}
			return addr, true
		}
	}
	return corev1.EndpointAddress{}, false
}

func isIPv6(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && ip.To4() == nil
}

// write creates or replaces the Endpoints with subsets, the Service's
// labels (plus headless and managed-by), the trigger time and, past
// 1000 addresses, the over-capacity annotation.
func (c *EndpointsController) write(ctx context.Context, svc *corev1.Service, cur *corev1.Endpoints, subsets []corev1.EndpointSubset, trigger time.Time) error {
	next := cur.DeepCopy()
	next.Subsets = subsets
	next.Labels = copyMap(svc.Labels)
	if next.Labels == nil {
		next.Labels = map[string]string{}
	}
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	setTriggerTime(next.Annotations, trigger)
	if truncateEndpoints(next) {
		next.Annotations[corev1.EndpointsOverCapacity] = EndpointsOverCapacityTruncated
	} else {
		delete(next.Annotations, corev1.EndpointsOverCapacity)
	}
	if isServiceIPSet(svc) {
		delete(next.Labels, corev1.IsHeadlessService)
	} else {
		next.Labels[corev1.IsHeadlessService] = ""
	}
	next.Labels[LabelEndpointsManagedBy] = EndpointsControllerName
	decideEndpoints(ctx, svc, next)
	eps := c.client.CoreV1().Endpoints(svc.Namespace)
	if cur.ResourceVersion == "" {
		wctx := writeSlot(ctx)
		made, err := eps.Create(wctx, next, metav1.CreateOptions{})
		if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		if err == nil {
			noteCreated(wctx, made)
		}
		return err
	}
	updated, err := eps.Update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	if updated.ResourceVersion != cur.ResourceVersion {
		c.stale.mark(cur)
	}
	return nil
}

// decideEndpoints records the write in the sync's record, if any.
func decideEndpoints(ctx context.Context, svc *corev1.Service, ep *corev1.Endpoints) {
	var all, ready int32
	for _, s := range ep.Subsets {
		ready += int32(len(s.Addresses))
		all += int32(len(s.Addresses) + len(s.NotReadyAddresses))
	}
	decide(ctx, Decision{Reason: ReasonEndpointsChanged, Target: svc.Name, Want: all, Have: ready})
}

// endpointsLabelsCorrect: the Endpoints have the Service's labels and
// managed-by (headless aside).
func endpointsLabelsCorrect(ep, svc map[string]string) bool {
	if ep[LabelEndpointsManagedBy] != EndpointsControllerName {
		return false
	}
	skipped := 0
	for k, v := range ep {
		if k == corev1.IsHeadlessService || k == LabelEndpointsManagedBy {
			skipped++
		} else if sv, ok := svc[k]; !ok || sv != v {
			return false
		}
	}
	return len(svc) == len(ep)-skipped
}

// capacityAnnotationCorrect: the over-capacity annotation is there only
// past the capacity. (As upstream's, it is false past it: the stored
// subsets were truncated, so they never equal the desired ones anyway.)
func capacityAnnotationCorrect(ep *corev1.Endpoints) bool {
	n := 0
	for _, s := range ep.Subsets {
		n += len(s.Addresses) + len(s.NotReadyAddresses)
	}
	if n > maxEndpointsCapacity {
		return false
	}
	_, ok := ep.Annotations[corev1.EndpointsOverCapacity]
	return !ok
}
