package registry_test

import (
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// runAllocator runs the registry's watch caches (and so its service
// allocator) until the test ends.
func runAllocator(t *testing.T, r *registry.Registry) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.RunWatchCaches(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func newService(name string, typ corev1.ServiceType, ports ...corev1.ServicePort) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Type: typ, Selector: map[string]string{"app": name}, Ports: ports}}
	registry.Services.Default(s, true)
	return s
}

// ipOffset is ip's distance from the first address of cidr (both IPv4).
func ipOffset(cidr *net.IPNet, ip net.IP) uint32 {
	return binary.BigEndian.Uint32(ip.To4()) - binary.BigEndian.Uint32(cidr.IP.To4())
}

func tcp(port int32) corev1.ServicePort { return corev1.ServicePort{Port: port} }

func mustCreateService(t *testing.T, r *registry.Registry, s *corev1.Service) *corev1.Service {
	t.Helper()
	out, err := r.Services.Create(context.Background(), "default", s, nil, registry.Options{})
	if err != nil {
		t.Fatalf("create service %s: %v", s.Name, err)
	}
	return out.(*corev1.Service)
}

func TestServiceAllocation(t *testing.T) {
	r := newRegistry(t)
	runAllocator(t, r)
	_, cidr, _ := net.ParseCIDR(registry.DefaultServiceCIDR)

	web := mustCreateService(t, r, newService("web", corev1.ServiceTypeNodePort, tcp(80)))
	ip := net.ParseIP(web.Spec.ClusterIP)
	if !cidr.Contains(ip) || web.Spec.ClusterIPs[0] != web.Spec.ClusterIP || ipOffset(cidr, ip) < 256 {
		t.Errorf("clusterIP %q (clusterIPs %v): want one address of %s above its first 256", web.Spec.ClusterIP, web.Spec.ClusterIPs, cidr)
	}
	if np := web.Spec.Ports[0].NodePort; np < 30000 || np > 32767 {
		t.Errorf("nodePort = %d, want one in 30000-32767", np)
	}
	if *web.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack || web.Spec.Ports[0].TargetPort != intstr.FromInt32(80) {
		t.Errorf("ipFamilyPolicy %v, targetPort %v: want SingleStack and the port", *web.Spec.IPFamilyPolicy, web.Spec.Ports[0].TargetPort)
	}
	headless := newService("db", corev1.ServiceTypeClusterIP)
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	if got := mustCreateService(t, r, headless); got.Spec.ClusterIPs[0] != "None" {
		t.Errorf("headless clusterIPs = %v, want [None]", got.Spec.ClusterIPs)
	}

	tests := []struct {
		name string
		svc  func() *corev1.Service
		code int32
		msg  string
	}{
		{"taken IP", func() *corev1.Service {
			s := newService("same-ip", corev1.ServiceTypeClusterIP, tcp(80))
			s.Spec.ClusterIP = web.Spec.ClusterIP
			return s
		}, 422, "failed to allocate IP " + web.Spec.ClusterIP + ": provided IP is already allocated"},
		{"IP outside", func() *corev1.Service {
			s := newService("outside", corev1.ServiceTypeClusterIP, tcp(80))
			s.Spec.ClusterIP = "10.0.0.5"
			return s
		}, 422, `Service "outside" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.5"]: failed to allocate IP 10.0.0.5: the provided network does not match the current range`},
		// Upstream counts neither the network nor the broadcast address
		// as inside the range: the same answer, not a range error.
		{"network address", func() *corev1.Service {
			s := newService("network", corev1.ServiceTypeClusterIP, tcp(80))
			s.Spec.ClusterIP = "10.96.0.0"
			return s
		}, 422, `Service "network" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.0"]: failed to allocate IP 10.96.0.0: the provided network does not match the current range`},
		{"node port below range", func() *corev1.Service {
			s := newService("low", corev1.ServiceTypeNodePort, corev1.ServicePort{Port: 80, NodePort: 29999})
			return s
		}, 422, "spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. The range of valid ports is 30000-32767"},
		{"node port taken", func() *corev1.Service {
			return newService("taken", corev1.ServiceTypeNodePort, corev1.ServicePort{Port: 80, NodePort: web.Spec.Ports[0].NodePort})
		}, 422, "provided port is already allocated"},
		{"node port on ClusterIP", func() *corev1.Service {
			return newService("cip", corev1.ServiceTypeClusterIP, corev1.ServicePort{Port: 80, NodePort: 30001})
		}, 422, "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"},
		{"no ports", func() *corev1.Service { return newService("empty", corev1.ServiceTypeClusterIP) }, 422, "spec.ports: Required value"},
		{"unnamed second port", func() *corev1.Service {
			return newService("two", corev1.ServiceTypeClusterIP, tcp(80), tcp(443))
		}, 422, "spec.ports[0].name: Required value"},
		{"port 0", func() *corev1.Service {
			return newService("zero", corev1.ServiceTypeClusterIP, corev1.ServicePort{Port: 0, TargetPort: intstr.FromInt32(80)})
		}, 422, "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"},
		{"headless NodePort", func() *corev1.Service {
			s := newService("hn", corev1.ServiceTypeNodePort, tcp(80))
			s.Spec.ClusterIP = corev1.ClusterIPNone
			return s
		}, 422, "may not be set to 'None' for NodePort services"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Services.Create(context.Background(), "default", tt.svc(), nil, registry.Options{})
			wantStatus(t, err, tt.code, tt.msg)
		})
	}

	t.Run("update keeps what was allocated", func(t *testing.T) {
		put := web.DeepCopy()
		put.Spec.ClusterIP, put.Spec.ClusterIPs, put.Spec.Ports[0].NodePort = "", nil, 0
		out, _, err := r.Services.Update(context.Background(), "default", "web", replaceWith(put), nil, nil, registry.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*corev1.Service)
		if got.Spec.ClusterIP != web.Spec.ClusterIP || got.Spec.Ports[0].NodePort != web.Spec.Ports[0].NodePort {
			t.Errorf("after PUT without them: clusterIP %s nodePort %d, want %s and %d", got.Spec.ClusterIP, got.Spec.Ports[0].NodePort, web.Spec.ClusterIP, web.Spec.Ports[0].NodePort)
		}
		moved := got.DeepCopy()
		moved.Spec.ClusterIP, moved.Spec.ClusterIPs = "10.96.0.50", []string{"10.96.0.50"}
		_, _, err = r.Services.Update(context.Background(), "default", "web", replaceWith(moved), nil, nil, registry.Options{})
		wantStatus(t, err, 422, `spec.clusterIPs[0]: Invalid value: ["10.96.0.50"]: may not change once set`)
	})

	t.Run("delete frees the IP and the port", func(t *testing.T) {
		if _, _, err := r.Services.Delete(context.Background(), "default", "web", nil, nil); err != nil {
			t.Fatal(err)
		}
		again := newService("web2", corev1.ServiceTypeNodePort, corev1.ServicePort{Port: 80, NodePort: web.Spec.Ports[0].NodePort})
		again.Spec.ClusterIP = web.Spec.ClusterIP
		deadline := time.Now().Add(waitTimeout)
		for {
			_, err := r.Services.Create(context.Background(), "default", again.DeepCopy(), nil, registry.Options{})
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("re-using a deleted service's IP and port: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestServiceAllocatorRebuiltAtStart: a registry started on the same etcd
// knows what the stored Services hold.
func TestServiceAllocatorRebuiltAtStart(t *testing.T) {
	e := etcdtest.Start(t)
	first, err := registry.New(registry.StoreConfig{Client: e.Client()})
	if err != nil {
		t.Fatal(err)
	}
	runAllocator(t, first)
	s := mustCreateService(t, first, newService("web", corev1.ServiceTypeNodePort, tcp(80)))

	second, err := registry.New(registry.StoreConfig{Client: e.Client()})
	if err != nil {
		t.Fatal(err)
	}
	runAllocator(t, second)
	same := newService("copy", corev1.ServiceTypeNodePort, corev1.ServicePort{Port: 80, NodePort: s.Spec.Ports[0].NodePort})
	_, err = second.Services.Create(context.Background(), "default", same, nil, registry.Options{})
	wantStatus(t, err, 422, "provided port is already allocated")
}
