package controllers

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// reconcilePorts reconciles the slices of one set of ports against the
// endpoints desired for it, as upstream's reconcileByPortMapping:
//  1. each existing slice keeps the endpoints still desired (updated
//     where their conditions or node changed); a slice left with none is
//     deleted, and one whose labels are out of date is updated;
//  2. the endpoints left over go first into the slices being updated
//     anyway (fullest first, up to max per slice), then into the
//     unchanged slice they fit in most tightly, and last into new slices.
//
// It never moves an endpoint from one slice to another to pack them:
// upstream prefers fewer writes to full slices.
func (c *EndpointSliceController) reconcilePorts(svc *corev1.Service, existing []*discoveryv1.EndpointSlice, desired endpointSet, ports []discoveryv1.EndpointPort, addressType discoveryv1.AddressType) sliceChanges {
	byName := map[string]*discoveryv1.EndpointSlice{}
	unchanged, toUpdate, toDelete := sets.New[string](), sets.New[string](), sets.New[string]()
	for _, s := range existing {
		byName[s.Name] = s
		kept, changed := keepDesired(s, desired)
		labels, labelsChanged := endpointSliceLabels(s, svc)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			if len(kept) == 0 {
				toDelete.Insert(s.Name)
				continue
			}
			s = s.DeepCopy()
			s.Endpoints, s.Labels = kept, labels
			byName[s.Name] = s
			toUpdate.Insert(s.Name)
		case labelsChanged:
			s = s.DeepCopy()
			s.Labels = labels
			byName[s.Name] = s
			toUpdate.Insert(s.Name)
		default:
			unchanged.Insert(s.Name)
		}
	}
	c.fillUpdated(byName, toUpdate, desired)
	create := c.fillRest(svc, byName, unchanged, toUpdate, desired, ports, addressType)
	var ch sliceChanges
	ch.create = create
	for _, n := range sets.List(toUpdate) {
		ch.update = append(ch.update, byName[n])
	}
	for _, n := range sets.List(toDelete) {
		ch.remove = append(ch.remove, byName[n])
	}
	return ch
}

// keepDesired returns the endpoints of s still in desired, as desired
// has them, taking them out of desired; changed if any of them differs
// from the slice's.
func keepDesired(s *discoveryv1.EndpointSlice, desired endpointSet) ([]discoveryv1.Endpoint, bool) {
	kept := []discoveryv1.Endpoint{}
	changed := false
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		k := endpointKey(ep)
		want, ok := desired[k]
		if !ok {
			continue
		}
		kept = append(kept, *want)
		if !endpointsEqualBeyondKey(want, ep) {
			changed = true
		}
		delete(desired, k)
	}
	return kept, changed
}

// fillUpdated puts desired endpoints into the slices being updated
// anyway, the fullest first, up to the maximum per slice.
func (c *EndpointSliceController) fillUpdated(byName map[string]*discoveryv1.EndpointSlice, toUpdate sets.Set[string], desired endpointSet) {
	if len(desired) == 0 || toUpdate.Len() == 0 {
		return
	}
	var list []*discoveryv1.EndpointSlice
	for _, n := range sets.List(toUpdate) {
		list = append(list, byName[n])
	}
	sort.SliceStable(list, func(i, j int) bool { return len(list[i].Endpoints) > len(list[j].Endpoints) })
	for _, s := range list {
		for len(desired) > 0 && len(s.Endpoints) < c.maxPerSlice {
			s.Endpoints = append(s.Endpoints, *desired.popAny())
		}
	}
}

// fillRest puts the endpoints still desired into the unchanged slice
// they fit in best (when fewer than a slice's worth are left), else into
// new slices, which it returns.
func (c *EndpointSliceController) fillRest(svc *corev1.Service, byName map[string]*discoveryv1.EndpointSlice, unchanged, toUpdate sets.Set[string], desired endpointSet, ports []discoveryv1.EndpointPort, addressType discoveryv1.AddressType) []*discoveryv1.EndpointSlice {
	var create []*discoveryv1.EndpointSlice
	for len(desired) > 0 {
		var fill *discoveryv1.EndpointSlice
		if len(desired) < c.maxPerSlice && unchanged.Len() > 0 {
			if s := sliceToFill(byName, unchanged, len(desired), c.maxPerSlice); s != nil {
				fill = s.DeepCopy()
				byName[fill.Name] = fill
			}
		}
		if fill == nil {
			fill = newEndpointSlice(svc, ports, addressType)
		}
		for len(desired) > 0 && len(fill.Endpoints) < c.maxPerSlice {
			fill.Endpoints = append(fill.Endpoints, *desired.popAny())
		}
		if fill.Name != "" {
			toUpdate.Insert(fill.Name)
			unchanged.Delete(fill.Name)
		} else {
			create = append(create, fill)
		}
	}
	return create
}

// sliceToFill is the unchanged slice that n more endpoints fill most
// closely to max without going over, nil if none has room for them all.
func sliceToFill(byName map[string]*discoveryv1.EndpointSlice, names sets.Set[string], n, max int) *discoveryv1.EndpointSlice {
	var best *discoveryv1.EndpointSlice
	closest := max
	for _, name := range sets.List(names) {
		s := byName[name]
		if diff := max - (n + len(s.Endpoints)); diff >= 0 && diff < closest {
			best, closest = s, diff
			if diff == 0 {
				break
			}
		}
	}
	return best
}
