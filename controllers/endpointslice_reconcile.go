package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/endpointslice"
	"k8s.io/klog/v2"
)

// reconcile brings the Service's slices (existing: those labelled with
// its name and managed by this controller) to what pods make of it with
// k8s.io/endpointslice's Reconciler, which kube-controller-manager's
// controller calls: slices per address type and per set of resolved
// ports, at most maxPerSlice endpoints each, filled and reused rather
// than repacked, one empty slice for a Service without endpoints, a
// create turned into the update of a slice it would delete, no create
// for a Service being deleted, the trigger time annotation on each
// written slice, and the hints of trafficDistribution. There is no
// topology cache: the topology-aware-hints annotation is not followed,
// and so the Reconciler records no events (it only records those of the
// topology cache).
//
// The Reconciler sends its writes with context.TODO(), which would keep
// them out of the sync's record, and decides and writes in one call. So
// each sync has a Reconciler of its own whose client sends the writes
// with the sync's context and notes them (sliceClient); the decision
// ReasonEndpointSlicesChanged is made from them once the Reconciler
// returns, and the slices created meanwhile are reported after it, as
// they were made (holdCreations).
func (c *EndpointSliceController) reconcile(ctx context.Context, svc *corev1.Service, pods []*corev1.Pod, existing []*discoveryv1.EndpointSlice, trigger time.Time) error {
	writes := &sliceWrites{ctx: ctx}
	r := endpointslice.NewReconciler(sliceClient{Interface: c.client, writes: writes}, c.nodeLister, c.maxPerSlice, c.tracker,
		nil, nil, EndpointSliceManagedBy, endpointslice.WithPreferSameTrafficDistributionEnabled(preferSameTrafficDistribution))
	holdCreations(ctx)
	err := r.Reconcile(klog.FromContext(ctx), svc, pods, existing, trigger)
	decideSlices(ctx, svc, existing, writes)
	releaseCreations(ctx)
	return err
}

// preferSameTrafficDistribution is the PreferSameTrafficDistribution
// feature, GA and locked on in v1.37: trafficDistribution PreferSameZone
// and PreferSameNode are followed as well as PreferClose.
const preferSameTrafficDistribution = true
