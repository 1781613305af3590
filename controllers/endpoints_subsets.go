package controllers

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// maxEndpointsCapacity is how many addresses an Endpoints object keeps;
// past it the controller truncates and sets the over-capacity
// annotation, as upstream's (the EndpointSlices have them all).
const maxEndpointsCapacity = 1000

// repackSubsets merges subsets that share their addresses into one with
// all their ports, and sorts them, as upstream's RepackSubsets: the
// controller makes one subset per pod and port, an Endpoints object
// shows each distinct set of addresses once. An address ready on one
// port and not ready on another counts as not ready on both.
func repackSubsets(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	type addrKey struct {
		ip  string
		uid types.UID
	}
	all := map[addrKey]*corev1.EndpointAddress{}
	byPort := map[corev1.EndpointPort]map[*corev1.EndpointAddress]bool{} // address → ready
	var portOrder []corev1.EndpointPort
	mark := func(a *corev1.EndpointAddress, port corev1.EndpointPort, ready bool) {
		k := addrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		if all[k] == nil {
			cp := *a
			all[k] = &cp
		}
		if byPort[port] == nil {
			byPort[port] = map[*corev1.EndpointAddress]bool{}
			portOrder = append(portOrder, port)
		}
		if was, seen := byPort[port][all[k]]; !seen || was {
			byPort[port][all[k]] = ready
		}
	}
	for i := range subsets {
		ports := subsets[i].Ports
		if len(ports) == 0 {
			ports = []corev1.EndpointPort{{Port: -1}} // a sentinel: no ports
		}
		for _, p := range ports {
			for j := range subsets[i].Addresses {
				mark(&subsets[i].Addresses[j], p, true)
			}
			for j := range subsets[i].NotReadyAddresses {
				mark(&subsets[i].NotReadyAddresses[j], p, false)
			}
		}
	}
	return groupByAddresses(byPort, portOrder)
}

// groupByAddresses makes one subset per distinct set of addresses (with
// their readiness), holding every port that has that set.
func groupByAddresses(byPort map[corev1.EndpointPort]map[*corev1.EndpointAddress]bool, portOrder []corev1.EndpointPort) []corev1.EndpointSubset {
	groups := map[string]*corev1.EndpointSubset{}
	var order []string
	for _, port := range portOrder {
		addrs := byPort[port]
		key := addressSetKey(addrs)
		g, ok := groups[key]
		if !ok {
			g = &corev1.EndpointSubset{}
			for a, ready := range addrs {
				if ready {
					g.Addresses = append(g.Addresses, *a)
				} else {
					g.NotReadyAddresses = append(g.NotReadyAddresses, *a)
				}
			}
			groups[key] = g
			order = append(order, key)
		}
		if port.Port > 0 {
			g.Ports = append(g.Ports, port)
		}
	}
	out := make([]corev1.EndpointSubset, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	return sortSubsets(out)
}

// addressSetKey identifies a set of addresses with their readiness.
func addressSetKey(addrs map[*corev1.EndpointAddress]bool) string {
	keys := make([]string, 0, len(addrs))
	for a, ready := range addrs {
		uid := types.UID("")
		if a.TargetRef != nil {
			uid = a.TargetRef.UID
		}
		keys = append(keys, fmt.Sprintf("%s/%s/%t", a.IP, uid, ready))
	}
	sort.Strings(keys)
	return fmt.Sprint(keys)
}

// sortSubsets sorts each subset's addresses by IP then pod UID, its
// ports by name then number, and the subsets by their first address.
// (Upstream orders ports and subsets by a hash; kubesim by something a
// reader can follow. The set written is the same.)
func sortSubsets(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	for i := range subsets {
		s := &subsets[i]
		sort.Slice(s.Addresses, func(a, b int) bool { return lessAddress(&s.Addresses[a], &s.Addresses[b]) })
		sort.Slice(s.NotReadyAddresses, func(a, b int) bool { return lessAddress(&s.NotReadyAddresses[a], &s.NotReadyAddresses[b]) })
		sort.Slice(s.Ports, func(a, b int) bool {
			if s.Ports[a].Name != s.Ports[b].Name {
				return s.Ports[a].Name < s.Ports[b].Name
			}
			return s.Ports[a].Port < s.Ports[b].Port
		})
	}
	sort.SliceStable(subsets, func(a, b int) bool { return subsetKey(subsets[a]) < subsetKey(subsets[b]) })
	return subsets
}

func subsetKey(s corev1.EndpointSubset) string {
	return fmt.Sprint(s.Addresses, s.NotReadyAddresses, s.Ports)
}

// lessAddress orders by IP, then by the target's UID (none first).
func lessAddress(a, b *corev1.EndpointAddress) bool {
	if c := bytes.Compare([]byte(a.IP), []byte(b.IP)); c != 0 {
		return c < 0
	}
	if b.TargetRef == nil {
		return false
	}
	if a.TargetRef == nil {
		return true
	}
	return a.TargetRef.UID < b.TargetRef.UID
}

// truncateEndpoints keeps at most maxEndpointsCapacity addresses, as
// upstream's: not-ready ones go first; if the ready ones alone are too
// many, only ready ones are kept. Each subset keeps its share, rounded
// up. It reports whether anything was cut.
func truncateEndpoints(ep *corev1.Endpoints) bool {
	ready, notReady := 0, 0
	for _, s := range ep.Subsets {
		ready += len(s.Addresses)
		notReady += len(s.NotReadyAddresses)
	}
	if ready+notReady <= maxEndpointsCapacity {
		return false
	}
	cutReady := ready > maxEndpointsCapacity
	max, total := maxEndpointsCapacity-ready, notReady
	if cutReady {
		max, total = maxEndpointsCapacity, ready
	}
	room := max
	for i := range ep.Subsets {
		s := &ep.Subsets[i]
		n := len(s.NotReadyAddresses)
		if cutReady {
			n = len(s.Addresses)
		}
		keep := min(int(math.Ceil(float64(n)/float64(total)*float64(max))), room)
		if cutReady {
			s.Addresses = s.Addresses[:min(keep, len(s.Addresses))]
			s.NotReadyAddresses = []corev1.EndpointAddress{}
			room -= len(s.Addresses)
		} else {
			s.NotReadyAddresses = s.NotReadyAddresses[:min(keep, len(s.NotReadyAddresses))]
			room -= len(s.NotReadyAddresses)
		}
	}
	return true
}
