package controllers

import (
	"fmt"
	"net"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/endpointslice"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// podToEndpoint is the pod's endpoint in a slice of addressType, with
// upstream's conditions: serving is the pod's Ready condition,
// terminating its deletionTimestamp, and ready is serving and not
// terminating, or always with publishNotReadyAddresses.
func podToEndpoint(pod *corev1.Pod, node *corev1.Node, svc *corev1.Service, addressType discoveryv1.AddressType) discoveryv1.Endpoint {
	serving := isPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{
		Addresses:  podAddresses(pod, addressType),
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		ep.NodeName = &pod.Spec.NodeName
	}
	if node != nil && node.Labels[corev1.LabelTopologyZone] != "" {
		zone := node.Labels[corev1.LabelTopologyZone]
		ep.Zone = &zone
	}
	if endpointsliceutil.ShouldSetHostname(pod, svc) {
		ep.Hostname = &pod.Spec.Hostname
	}
	return ep
}

// podAddresses are the pod's IPs of addressType's family.
func podAddresses(pod *corev1.Pod, addressType discoveryv1.AddressType) []string {
	out := []string{}
	for _, pip := range pod.Status.PodIPs {
		ip := net.ParseIP(pip.IP)
		if ip == nil {
			continue
		}
		if v6 := ip.To4() == nil; v6 == (addressType == discoveryv1.AddressTypeIPv6) {
			out = append(out, ip.String())
		}
	}
	return out
}

// endpointPorts are the Service's ports resolved against the pod's
// containers (k8s.io/endpointslice's FindPort); a port the pod does not
// have is left out, so pods with different named ports end up in
// different slices.
func endpointPorts(svc *corev1.Service, pod *corev1.Pod) []discoveryv1.EndpointPort {
	out := []discoveryv1.EndpointPort{}
	if len(svc.Spec.Ports) == 0 && svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return out
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		n, err := endpointslice.FindPort(pod, sp)
		if err != nil {
			continue
		}
		num := int32(n)
		name, proto := sp.Name, sp.Protocol
		out = append(out, discoveryv1.EndpointPort{Name: &name, Port: &num, Protocol: &proto, AppProtocol: sp.AppProtocol})
	}
	return out
}

// portMapKey identifies a set of endpoint ports, whatever their order:
// the endpoints of one set share slices.
func portMapKey(ports []discoveryv1.EndpointPort) string {
	parts := make([]string, 0, len(ports))
	for _, p := range ports {
		parts = append(parts, fmt.Sprintf("%s/%s/%s/%s", deref(p.Name), deref(p.Protocol), derefInt(p.Port), deref(p.AppProtocol)))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func deref[T ~string](p *T) string {
	if p == nil {
		return "<nil>"
	}
	return string(*p)
}

func derefInt(p *int32) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

// endpointKey identifies an endpoint across syncs as upstream's
// EndpointSet hash does: its addresses, hostname and target pod's name.
func endpointKey(ep *discoveryv1.Endpoint) string {
	addrs := slices.Clone(ep.Addresses)
	slices.Sort(addrs)
	var ns, name string
	if ep.TargetRef != nil {
		ns, name = ep.TargetRef.Namespace, ep.TargetRef.Name
	}
	return fmt.Sprintf("%s|%s|%s/%s", strings.Join(addrs, ","), deref(ep.Hostname), ns, name)
}

// endpointSet is a set of endpoints by endpointKey.
type endpointSet map[string]*discoveryv1.Endpoint

func (s endpointSet) insert(ep *discoveryv1.Endpoint) { s[endpointKey(ep)] = ep }

// popAny removes and returns one endpoint, the one of the least key so
// that slices fill in a stable order.
func (s endpointSet) popAny() *discoveryv1.Endpoint {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	k := slices.Min(keys)
	ep := s[k]
	delete(s, k)
	return ep
}

// endpointsEqualBeyondKey: the endpoints of one key agree on what a
// slice shows of them (node, zone, conditions, target).
func endpointsEqualBeyondKey(a, b *discoveryv1.Endpoint) bool {
	ra, rb := a.TargetRef, b.TargetRef
	if ra != nil && rb != nil {
		ca, cb := *ra, *rb
		ca.ResourceVersion, cb.ResourceVersion = "", ""
		ra, rb = &ca, &cb
	}
	return apiequality.Semantic.DeepEqual(a.NodeName, b.NodeName) && apiequality.Semantic.DeepEqual(a.Zone, b.Zone) &&
		apiequality.Semantic.DeepEqual(a.Conditions, b.Conditions) && apiequality.Semantic.DeepEqual(ra, rb)
}

// newEndpointSlice is an empty slice for svc with ports and addressType:
// generateName "<service>-", owned by the Service (controller: true,
// blockOwnerDeletion: true), with the Service's labels and the two the
// controller finds its slices by.
func newEndpointSlice(svc *corev1.Service, ports []discoveryv1.EndpointPort, addressType discoveryv1.AddressType) *discoveryv1.EndpointSlice {
	ref := metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{GenerateName: endpointSlicePrefix(svc.Name), Namespace: svc.Namespace,
			OwnerReferences: []metav1.OwnerReference{*ref}},
		Ports:       ports,
		AddressType: addressType,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	s.Labels, _ = endpointSliceLabels(s, svc)
	return s
}

// endpointSlicePrefix is "<service>-", or the name alone if that is not
// a valid prefix.
func endpointSlicePrefix(name string) string {
	if len(validation.NameIsDNSSubdomain(name+"-", true)) != 0 {
		return name
	}
	return name + "-"
}

// endpointSliceLabels are the labels slice should have: the Service's
// (but the reserved three), service-name, managed-by, and
// service.kubernetes.io/headless for a headless Service; changed says
// whether the Service's labels differ from the slice's.
func endpointSliceLabels(slice *discoveryv1.EndpointSlice, svc *corev1.Service) (map[string]string, bool) {
	have, want := map[string]string{}, map[string]string{}
	for k, v := range slice.Labels {
		if !reservedSliceLabels.Has(k) {
			have[k] = v
		}
	}
	for k, v := range svc.Labels {
		if !reservedSliceLabels.Has(k) {
			want[k] = v
		}
	}
	changed := !apiequality.Semantic.DeepEqual(have, want)
	if !isServiceIPSet(svc) {
		want[corev1.IsHeadlessService] = ""
	}
	want[discoveryv1.LabelServiceName] = svc.Name
	want[discoveryv1.LabelManagedBy] = EndpointSliceManagedBy
	return want, changed
}

var reservedSliceLabels = sets.New(discoveryv1.LabelServiceName, discoveryv1.LabelManagedBy, corev1.IsHeadlessService)

// sliceOwnedBy: the slice has an ownerReference to svc (by UID).
func sliceOwnedBy(slice *discoveryv1.EndpointSlice, svc *corev1.Service) bool {
	for _, o := range slice.OwnerReferences {
		if o.UID == svc.UID && o.Kind == "Service" && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// serviceAddressTypes are the slices' address types for svc: from its
// ipFamilies (the API server always sets them), else from its cluster
// IP, else both.
func serviceAddressTypes(svc *corev1.Service) sets.Set[discoveryv1.AddressType] {
	out := sets.New[discoveryv1.AddressType]()
	for _, f := range svc.Spec.IPFamilies {
		switch f {
		case corev1.IPv4Protocol:
			out.Insert(discoveryv1.AddressTypeIPv4)
		case corev1.IPv6Protocol:
			out.Insert(discoveryv1.AddressTypeIPv6)
		}
	}
	if out.Len() > 0 {
		return out
	}
	if isServiceIPSet(svc) {
		if ip := net.ParseIP(svc.Spec.ClusterIP); ip != nil && ip.To4() == nil {
			return out.Insert(discoveryv1.AddressTypeIPv6)
		}
		return out.Insert(discoveryv1.AddressTypeIPv4)
	}
	return out.Insert(discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6)
}
