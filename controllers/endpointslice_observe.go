package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kubesim/kubesim/internal/flow"
)

// ReasonEndpointSlicesChanged: a Service's EndpointSlices no longer
// list what its pods make of it; Target is the Service, Want the
// endpoints its slices list after the sync, Have how many of them are
// ready, Count the slices written (created, updated or deleted).
const ReasonEndpointSlicesChanged = flow.DecisionEndpointSlicesChanged

// decideSlices records, in the sync's record if any, that the slices of
// svc changed as writes say: existing, but those updated or deleted,
// plus those created or updated, as they were sent. A sync that wrote
// nothing decided nothing.
func decideSlices(ctx context.Context, svc *corev1.Service, existing []*discoveryv1.EndpointSlice, writes *sliceWrites) {
	if recordOf(ctx) == nil || writes.count() == 0 {
		return
	}
	written := sets.New(writes.deleted...)
	for _, s := range writes.updated {
		written.Insert(s.Name)
	}
	after := append(append([]*discoveryv1.EndpointSlice{}, writes.created...), writes.updated...)
	for _, s := range existing {
		if !written.Has(s.Name) {
			after = append(after, s)
		}
	}
	var endpoints, ready int32
	for _, s := range after {
		for _, ep := range s.Endpoints {
			endpoints++
			if ep.Conditions.Ready != nil && *ep.Conditions.Ready {
				ready++
			}
		}
	}
	decide(ctx, Decision{Reason: ReasonEndpointSlicesChanged, Target: svc.Name, Want: endpoints, Have: ready, Count: int32(writes.count())})
}
