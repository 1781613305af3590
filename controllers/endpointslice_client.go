package controllers

import (
	"context"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	discoveryclient "k8s.io/client-go/kubernetes/typed/discovery/v1"
)

// sliceWrites are the EndpointSlice writes one sync's Reconciler sent, in
// order, whatever their answers: what it decided to write. One sync's
// goroutine uses it.
type sliceWrites struct {
	// ctx is the sync's context, which the writes are sent with.
	ctx              context.Context
	created, updated []*discoveryv1.EndpointSlice
	deleted          []string
}

// count is how many writes were sent.
func (w *sliceWrites) count() int { return len(w.created) + len(w.updated) + len(w.deleted) }

// sliceClient is the client of one sync's Reconciler: the controller's,
// but EndpointSlice creates, updates and deletes are sent with the sync's
// context (the Reconciler gives context.TODO()), so that the transport
// records them in the sync's record (observeWrites), and are noted in
// writes. A create is a writeSlot whose slice is noted as created.
type sliceClient struct {
	kubernetes.Interface
	writes *sliceWrites
}

// DiscoveryV1 is the discovery.k8s.io/v1 client with sliceClient's
// EndpointSlices.
func (c sliceClient) DiscoveryV1() discoveryclient.DiscoveryV1Interface {
	return sliceDiscovery{DiscoveryV1Interface: c.Interface.DiscoveryV1(), writes: c.writes}
}

type sliceDiscovery struct {
	discoveryclient.DiscoveryV1Interface
	writes *sliceWrites
}

func (d sliceDiscovery) EndpointSlices(namespace string) discoveryclient.EndpointSliceInterface {
	return sliceWriter{EndpointSliceInterface: d.DiscoveryV1Interface.EndpointSlices(namespace), writes: d.writes}
}

// sliceWriter sends and notes the writes; reads pass as they are.
type sliceWriter struct {
	discoveryclient.EndpointSliceInterface
	writes *sliceWrites
}

func (s sliceWriter) Create(_ context.Context, slice *discoveryv1.EndpointSlice, opts metav1.CreateOptions) (*discoveryv1.EndpointSlice, error) {
	s.writes.created = append(s.writes.created, slice)
	ctx := writeSlot(s.writes.ctx)
	made, err := s.EndpointSliceInterface.Create(ctx, slice, opts)
	if err == nil {
		noteCreated(ctx, made)
	}
	return made, err
}

func (s sliceWriter) Update(_ context.Context, slice *discoveryv1.EndpointSlice, opts metav1.UpdateOptions) (*discoveryv1.EndpointSlice, error) {
	s.writes.updated = append(s.writes.updated, slice)
	return s.EndpointSliceInterface.Update(s.writes.ctx, slice, opts)
}

func (s sliceWriter) Delete(_ context.Context, name string, opts metav1.DeleteOptions) error {
	s.writes.deleted = append(s.writes.deleted, name)
	return s.EndpointSliceInterface.Delete(s.writes.ctx, name, opts)
}
