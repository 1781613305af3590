package controlplane

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestKubernetesServiceController: a server's first Sync creates the
// kubernetes Service (443 to its port) and lists it with its port; a
// second server's first Sync sets the port to its own, and the passes
// after a server's first keep the stored one; Stop takes the server out
// at once, and a Sync after it lists it no more.
func TestKubernetesServiceController(t *testing.T) {
	p := newReconcilerPair(t, 15*time.Second)
	// The Service's cluster IP comes from the service allocator, which
	// follows the Services' watch cache.
	caches, stopCaches := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.reg.RunWatchCaches(caches) }()
	t.Cleanup(func() { stopCaches(); <-done })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	newController := func(rec *LeaseEndpointReconciler, ip string, port int) *KubernetesServiceController {
		return NewKubernetesServiceController(p.reg, KubernetesServiceConfig{
			PublicIP: ip, Port: port, EndpointReconciler: rec, EndpointInterval: 10 * time.Second})
	}
	a, b := newController(p.a, "127.0.0.1", 6443), newController(p.b, "127.0.0.2", 7443)
	if err := a.Sync(ctx); err != nil {
		t.Fatalf("sync a: %v", err)
	}
	obj, err := p.reg.Services.Get(ctx, metav1.NamespaceDefault, registry.KubernetesServiceName, nil)
	if err != nil {
		t.Fatalf("kubernetes service: %v", err)
	}
	if ports := obj.(*corev1.Service).Spec.Ports; len(ports) != 1 || ports[0].Port != 443 || ports[0].TargetPort.IntValue() != 6443 {
		t.Errorf("service ports %+v, want 443 to 6443", ports)
	}
	if ips, port := p.endpointIPs(t); !slices.Equal(ips, []string{"127.0.0.1"}) || port != 6443 {
		t.Errorf("endpoints %v port %d after a's first sync, want [127.0.0.1] port 6443", ips, port)
	}
	for _, step := range []struct {
		c    *KubernetesServiceController
		name string
	}{{b, "b's first"}, {a, "a's second"}, {b, "b's second"}} {
		if err := step.c.Sync(ctx); err != nil {
			t.Fatalf("%s sync: %v", step.name, err)
		}
		if ips, port := p.endpointIPs(t); len(ips) != 2 || port != 7443 {
			t.Errorf("endpoints %v port %d after %s sync, want two addresses on 7443", ips, port, step.name)
		}
	}
	if err := b.Stop(); err != nil {
		t.Fatalf("stop b: %v", err)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatalf("sync b after stop: %v", err)
	}
	if ips, _ := p.endpointIPs(t); !slices.Equal(ips, []string{"127.0.0.1"}) {
		t.Errorf("endpoints %v after b stopped, want [127.0.0.1]", ips)
	}
}
