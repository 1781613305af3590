package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// sliceChanges are the writes one reconcile makes.
type sliceChanges struct {
	create, update, remove []*discoveryv1.EndpointSlice
}

func (ch *sliceChanges) add(o sliceChanges) {
	ch.create = append(ch.create, o.create...)
	ch.update = append(ch.update, o.update...)
	ch.remove = append(ch.remove, o.remove...)
}

// reconcile brings the Service's slices (existing: those labelled with
// its name and managed by this controller) to what pods make of it, as
// upstream's Reconciler.Reconcile: slices of an address type the Service
// no longer has are deleted, each address type it has is reconciled on
// its own.
func (c *EndpointSliceController) reconcile(ctx context.Context, svc *corev1.Service, pods []*corev1.Pod, existing []*discoveryv1.EndpointSlice, trigger time.Time) error {
	types := serviceAddressTypes(svc)
	byType := map[discoveryv1.AddressType][]*discoveryv1.EndpointSlice{}
	var ch sliceChanges
	for _, s := range existing {
		if !types.Has(s.AddressType) {
			ch.remove = append(ch.remove, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	var errs []error
	for _, t := range sets.List(types) {
		at, err := c.reconcileAddressType(svc, pods, byType[t], t)
		if err != nil {
			errs = append(errs, err)
		}
		ch.add(at)
	}
	if len(ch.create)+len(ch.update)+len(ch.remove) > 0 {
		decideSlices(ctx, svc, existing, ch)
	}
	return errors.Join(append(errs, c.finalize(ctx, svc, ch, trigger))...)
}

// reconcileAddressType works out the changes for one address type: the
// desired endpoints grouped by their resolved ports, each group
// reconciled against the existing slices of the same ports; slices not
// owned by the Service, and of ports no pod has any more, are deleted.
// A Service with no endpoints keeps one empty slice (upstream's
// placeholder), so that "no endpoints" is written down too.
func (c *EndpointSliceController) reconcileAddressType(svc *corev1.Service, pods []*corev1.Pod, existing []*discoveryv1.EndpointSlice, addressType discoveryv1.AddressType) (sliceChanges, error) {
	var ch sliceChanges
	existingByPorts := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		if sliceOwnedBy(s, svc) {
			k := portMapKey(s.Ports)
			existingByPorts[k] = append(existingByPorts[k], s)
		} else {
			ch.remove = append(ch.remove, s)
		}
	}
	desired, portsByKey, err := c.desiredEndpoints(svc, pods, addressType)
	for _, k := range sortedKeys(desired) {
		ch.add(c.reconcilePorts(svc, existingByPorts[k], desired[k], portsByKey[k], addressType))
	}
	for _, k := range sortedKeys(existingByPorts) {
		if _, ok := desired[k]; !ok {
			ch.remove = append(ch.remove, existingByPorts[k]...)
		}
	}
	if len(existing) == len(ch.remove) && len(ch.create) == 0 {
		placeholder := newEndpointSlice(svc, []discoveryv1.EndpointPort{}, addressType)
		if len(ch.remove) == 1 && isPlaceholderOf(ch.remove[0], placeholder) {
			ch.remove = nil
		} else {
			ch.create = append(ch.create, placeholder)
		}
	}
	return ch, err
}

// desiredEndpoints are the endpoints the pods make, by port map key, and
// each key's ports. A pod on a node that does not exist is left out
// (with an error, so the sync is retried) unless the Service publishes
// not-ready addresses.
func (c *EndpointSliceController) desiredEndpoints(svc *corev1.Service, pods []*corev1.Pod, addressType discoveryv1.AddressType) (map[string]endpointSet, map[string][]discoveryv1.EndpointPort, error) {
	desired := map[string]endpointSet{}
	portsByKey := map[string][]discoveryv1.EndpointPort{}
	var errs []error
	for _, pod := range pods {
		if !endpointsliceutil.ShouldPodBeInEndpoints(pod, true) {
			continue
		}
		ports := endpointPorts(svc, pod)
		k := portMapKey(ports)
		if desired[k] == nil {
			desired[k], portsByKey[k] = endpointSet{}, ports
		}
		node, err := c.nodeLister.Get(pod.Spec.NodeName)
		if err != nil {
			if !apierrors.IsNotFound(err) {
				return nil, nil, err
			}
			if !svc.Spec.PublishNotReadyAddresses {
				errs = append(errs, fmt.Errorf("skipping pod %s for service %s/%s: node %s not found", pod.Name, svc.Namespace, svc.Name, pod.Spec.NodeName))
				continue
			}
			node = nil
		}
		ep := podToEndpoint(pod, node, svc, addressType)
		if len(ep.Addresses) > 0 {
			desired[k].insert(&ep)
		}
	}
	return desired, portsByKey, errors.Join(errs...)
}

// isPlaceholderOf: the slice is an empty one like want (same namespace,
// labels and owners, no endpoints and no ports).
func isPlaceholderOf(s, want *discoveryv1.EndpointSlice) bool {
	return s.Namespace == want.Namespace && len(s.Endpoints) == 0 && len(s.Ports) == 0 &&
		s.AddressType == want.AddressType && mapsEqual(s.Labels, want.Labels) &&
		slices.EqualFunc(s.OwnerReferences, want.OwnerReferences, func(a, b metav1.OwnerReference) bool { return a.String() == b.String() })
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
