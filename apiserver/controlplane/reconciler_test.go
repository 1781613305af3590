package controlplane

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// waitTimeout is the deadline of the package's tests' waits for a state:
// generous, so that only a hang reaches it, never a slow machine.
const waitTimeout = waitfor.Bound

// until calls cond until it holds, failing the test after waitTimeout.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, waitTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// reconcilerPair is two API servers' reconcilers (their IPs are only
// names here: nothing listens) on one etcd, with a short TTL.
type reconcilerPair struct {
	reg    *registry.Registry
	leases *registry.MasterLeases
	a, b   *LeaseEndpointReconciler
}

func newReconcilerPair(t *testing.T, ttl time.Duration) *reconcilerPair {
	t.Helper()
	client := etcdtest.Start(t).Client()
	reg, err := registry.New(registry.StoreConfig{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	leases, err := registry.NewMasterLeases(client, "", ttl)
	if err != nil {
		t.Fatal(err)
	}
	return &reconcilerPair{reg: reg, leases: leases,
		a: NewLeaseEndpointReconciler(reg, leases), b: NewLeaseEndpointReconciler(reg, leases)}
}

// endpointIPs returns the kubernetes Endpoints' addresses and port, and
// checks that the EndpointSlice lists the same addresses.
func (p *reconcilerPair) endpointIPs(t *testing.T) ([]string, int32) {
	t.Helper()
	ctx := context.Background()
	ep, err := p.reg.KubernetesEndpoints(ctx)
	if err != nil {
		t.Fatalf("kubernetes endpoints: %v", err)
	}
	var ips []string
	var port int32
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			ips = append(ips, a.IP)
		}
		if len(s.Ports) == 1 {
			port = s.Ports[0].Port
		}
	}
	obj, err := p.reg.EndpointSlices.Get(ctx, metav1.NamespaceDefault, registry.KubernetesServiceName, nil)
	if err != nil {
		t.Fatalf("kubernetes endpointslice: %v", err)
	}
	var sliceIPs []string
	for _, e := range obj.(*discoveryv1.EndpointSlice).Endpoints {
		sliceIPs = append(sliceIPs, e.Addresses...)
	}
	if !slices.Equal(ips, sliceIPs) {
		t.Errorf("EndpointSlice lists %v, Endpoints %v", sliceIPs, ips)
	}
	return ips, port
}

// TestLeaseEndpointReconcilerListsLiveServers: two servers that reconcile
// are both listed, in order, with the one port; one removed gracefully
// leaves at once; one that stops renewing (dies) leaves once its key's
// TTL has passed, at the next reconcile of the other.
func TestLeaseEndpointReconcilerListsLiveServers(t *testing.T) {
	p := newReconcilerPair(t, time.Second)
	ctx := context.Background()
	// Both servers reconcile and the Endpoints list both. (b's key lives
	// 1 s: on a machine so busy that it expires before a's reconcile has
	// read it, both reconcile again.)
	var ips []string
	var port int32
	until(t, "the Endpoints to list both servers", func() bool {
		for _, r := range []struct {
			rec *LeaseEndpointReconciler
			ip  string
		}{{p.b, "127.0.0.2"}, {p.a, "127.0.0.1"}} {
			if err := r.rec.ReconcileEndpoints(ctx, r.ip, 6443, true); err != nil {
				t.Fatalf("reconcile %s: %v", r.ip, err)
			}
		}
		ips, port = p.endpointIPs(t)
		return len(ips) == 2
	})
	if !slices.Equal(ips, []string{"127.0.0.1", "127.0.0.2"}) || port != 6443 {
		t.Fatalf("endpoints %v port %d, want [127.0.0.1 127.0.0.2] port 6443", ips, port)
	}

	// b dies: it renews no more. a's reconciles drop it after the TTL
	// (etcd may round a short TTL up to its minimum).
	deadline := time.Now().Add(waitTimeout)
	for {
		if err := p.a.ReconcileEndpoints(ctx, "127.0.0.1", 6443, false); err != nil {
			t.Fatalf("reconcile a: %v", err)
		}
		ips, _ := p.endpointIPs(t)
		if slices.Equal(ips, []string{"127.0.0.1"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("endpoints still %v %v after 127.0.0.2 stopped renewing a 1 s key", ips, waitTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// b comes back (again if its 1 s key expired before the Endpoints
	// were read), then shuts down gracefully: gone at once.
	until(t, "the Endpoints to list 127.0.0.2 again", func() bool {
		if err := p.b.ReconcileEndpoints(ctx, "127.0.0.2", 6443, false); err != nil {
			t.Fatal(err)
		}
		ips, _ := p.endpointIPs(t)
		return len(ips) == 2
	})
	p.b.StopReconciling()
	if err := p.b.RemoveEndpoints(ctx, "127.0.0.2", 6443); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if ips, _ := p.endpointIPs(t); !slices.Equal(ips, []string{"127.0.0.1"}) {
		t.Fatalf("endpoints %v after 127.0.0.2 shut down, want [127.0.0.1]", ips)
	}
	// A stopped reconciler writes nothing, not even its own key.
	if err := p.b.ReconcileEndpoints(ctx, "127.0.0.2", 6443, true); err != nil {
		t.Fatal(err)
	}
	if got, err := p.leases.ListLeases(ctx); err != nil || !slices.Equal(got, []string{"127.0.0.1"}) {
		t.Errorf("leases %v (%v) after a stopped reconcile, want [127.0.0.1]", got, err)
	}
}

// TestLeaseEndpointReconcilerPorts: a pass with reconcilePorts (kubesim's
// first) sets the port, later ones keep the stored one; the last server
// leaving empties the Endpoints.
func TestLeaseEndpointReconcilerPorts(t *testing.T) {
	p := newReconcilerPair(t, 15*time.Second)
	ctx := context.Background()
	if err := p.a.ReconcileEndpoints(ctx, "127.0.0.1", 6443, true); err != nil {
		t.Fatal(err)
	}
	if err := p.b.ReconcileEndpoints(ctx, "127.0.0.2", 7443, false); err != nil {
		t.Fatal(err)
	}
	if ips, port := p.endpointIPs(t); len(ips) != 2 || port != 6443 {
		t.Errorf("endpoints %v port %d, want two addresses on the stored 6443", ips, port)
	}
	if err := p.b.ReconcileEndpoints(ctx, "127.0.0.2", 7443, true); err != nil {
		t.Fatal(err)
	}
	if _, port := p.endpointIPs(t); port != 7443 {
		t.Errorf("port %d after a reconcilePorts pass with 7443", port)
	}
	for _, r := range []struct {
		rec *LeaseEndpointReconciler
		ip  string
	}{{p.a, "127.0.0.1"}, {p.b, "127.0.0.2"}} {
		r.rec.StopReconciling()
		if err := r.rec.RemoveEndpoints(ctx, r.ip, 7443); err != nil {
			t.Fatal(err)
		}
	}
	ep, err := p.reg.KubernetesEndpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ep.Subsets) != 0 {
		t.Errorf("subsets %+v after the last server left, want none", ep.Subsets)
	}
}

// TestLeaseEndpointReconcilerRefusesEmptyListing: a reconcile whose
// listing holds no server (not even the one that just renewed its key)
// fails and leaves the Endpoints alone, as upstream's.
func TestLeaseEndpointReconcilerRefusesEmptyListing(t *testing.T) {
	p := newReconcilerPair(t, 15*time.Second)
	ctx := context.Background()
	if err := p.a.ReconcileEndpoints(ctx, "127.0.0.1", 6443, true); err != nil {
		t.Fatal(err)
	}
	if err := p.leases.RemoveLease(ctx, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	p.a.mu.Lock()
	err := p.a.doReconcile(ctx, 6443, false)
	p.a.mu.Unlock()
	if !errors.Is(err, errNoMasterLeases) {
		t.Errorf("reconcile of an empty listing: %v, want errNoMasterLeases", err)
	}
	if ips, _ := p.endpointIPs(t); !slices.Equal(ips, []string{"127.0.0.1"}) {
		t.Errorf("endpoints %v, want them left as [127.0.0.1]", ips)
	}
}
