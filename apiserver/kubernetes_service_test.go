package apiserver_test

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubernetesServiceEndpointSlice checks the bootstrap hook writes the
// kubernetes EndpointSlice beside its Endpoints, as upstream's
// EndpointsAdapter does: same name, the service-name label, one ready
// endpoint at the API server's address and port, named https, at
// generation 1.
func TestKubernetesServiceEndpointSlice(t *testing.T) {
	ts := startServer(t)
	u, err := url.Parse(ts.url)
	if err != nil {
		t.Fatal(err)
	}
	host, p, _ := net.SplitHostPort(u.Host)
	port, _ := strconv.Atoi(p)
	ctx := context.Background()
	var slice *discoveryv1.EndpointSlice
	waitFor(t, waitTimeout, "the kubernetes EndpointSlice", func() bool {
		slice, err = ts.client.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil
	})
	if got := slice.Labels[discoveryv1.LabelServiceName]; got != "kubernetes" {
		t.Errorf("label %s = %q, want kubernetes", discoveryv1.LabelServiceName, got)
	}
	if _, managed := slice.Labels[discoveryv1.LabelManagedBy]; managed {
		t.Errorf("labels %v: upstream's adapter sets no managed-by label", slice.Labels)
	}
	if slice.AddressType != discoveryv1.AddressTypeIPv4 || len(slice.Endpoints) != 1 || len(slice.Ports) != 1 {
		t.Fatalf("slice %+v: want one IPv4 endpoint and one port", slice)
	}
	ep, port0 := slice.Endpoints[0], slice.Ports[0]
	if len(ep.Addresses) != 1 || ep.Addresses[0] != host || ep.Conditions.Ready == nil || !*ep.Conditions.Ready {
		t.Errorf("endpoint %+v: want %s, ready", ep, host)
	}
	if *port0.Name != "https" || int(*port0.Port) != port {
		t.Errorf("port %s %d, want https %d", *port0.Name, *port0.Port, port)
	}
	if slice.Generation != 1 {
		t.Errorf("generation %d, want 1 (written once)", slice.Generation)
	}
}
