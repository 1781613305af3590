package metricsserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestServiceLoad(t *testing.T) {
	tests := []struct {
		value string
		set   bool
		want  int64
		ok    bool
	}{
		{"900m", true, 900_000_000, true},
		{"2", true, 2_000_000_000, true},
		{"250000000n", true, 250_000_000, true},
		{"", false, 0, false},
		{"lots", true, 0, false},
		{"0", true, 0, false},
		{"-1", true, 0, false},
	}
	for _, tt := range tests {
		svc := &corev1.Service{}
		if tt.set {
			svc.Annotations = map[string]string{CPULoadAnnotation: tt.value}
		}
		if got, ok := ServiceLoad(svc); got != tt.want || ok != tt.ok {
			t.Errorf("ServiceLoad(%q set=%v) = %d, %v; want %d, %v", tt.value, tt.set, got, ok, tt.want, tt.ok)
		}
	}
}

// endpoint is a slice's endpoint for pod name, ready unless ready is
// false (nil: unset).
func endpoint(name string, ready *bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: name},
		Conditions: discoveryv1.EndpointConditions{Ready: ready}}
}

func slice(port int32, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-x",
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: eps}
}

func TestSpread(t *testing.T) {
	yes, no := true, false
	withPort := func(c corev1.Container, port int32) corev1.Container {
		c.Ports = []corev1.ContainerPort{{ContainerPort: port}}
		return c
	}
	pods := map[string]*corev1.Pod{
		"a": runningPod("default", "a", "node-1", container("app", "100m", "", "", "")),
		"b": runningPod("default", "b", "node-1", container("app", "100m", "", "", "")),
		"c": runningPod("default", "c", "node-1", container("app", "100m", "", "", "")),
		"side": runningPod("default", "side", "node-1", container("log", "10m", "", "", ""),
			withPort(container("http", "100m", "", "", ""), 8080)),
	}
	lookup := func(_, name string) *corev1.Pod { return pods[name] }
	tests := []struct {
		name   string
		slices []*discoveryv1.EndpointSlice
		want   map[string]map[string]int64 // pod → container → nanocores
	}{
		{"one pod takes it all", []*discoveryv1.EndpointSlice{slice(80, endpoint("a", &yes))},
			map[string]map[string]int64{"a": {"app": 900_000_000}}},
		{"evenly, ready unset counts", []*discoveryv1.EndpointSlice{slice(80, endpoint("a", &yes), endpoint("b", nil), endpoint("c", &yes))},
			map[string]map[string]int64{"a": {"app": 300_000_000}, "b": {"app": 300_000_000}, "c": {"app": 300_000_000}}},
		{"not ready gets none", []*discoveryv1.EndpointSlice{slice(80, endpoint("a", &yes), endpoint("b", &no))},
			map[string]map[string]int64{"a": {"app": 900_000_000}}},
		{"a pod in two slices counts once", []*discoveryv1.EndpointSlice{slice(80, endpoint("a", &yes)), slice(80, endpoint("a", &yes), endpoint("b", &yes))},
			map[string]map[string]int64{"a": {"app": 450_000_000}, "b": {"app": 450_000_000}}},
		{"an unknown pod takes its share", []*discoveryv1.EndpointSlice{slice(80, endpoint("a", &yes), endpoint("gone", &yes), endpoint("b", &yes))},
			map[string]map[string]int64{"a": {"app": 300_000_000}, "b": {"app": 300_000_000}}},
		{"the container of the port", []*discoveryv1.EndpointSlice{slice(8080, endpoint("side", &yes))},
			map[string]map[string]int64{"side": {"http": 900_000_000}}},
		{"no such port: the first container", []*discoveryv1.EndpointSlice{slice(9090, endpoint("side", &yes))},
			map[string]map[string]int64{"side": {"log": 900_000_000}}},
		{"no ready endpoint", []*discoveryv1.EndpointSlice{slice(80, endpoint("a", &no))}, map[string]map[string]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Load{}
			l.Spread(900_000_000, tt.slices, lookup)
			if len(l) != len(tt.want) {
				t.Errorf("load on %d pods (%v), want %d (%v)", len(l), l, len(tt.want), tt.want)
			}
			for pod, cs := range tt.want {
				for c, want := range cs {
					if got := l.on(pods[pod], c); got != want {
						t.Errorf("load on %s/%s = %d, want %d", pod, c, got, want)
					}
				}
			}
		})
	}
}

// TestLoadUsage: a container's cpu is its idle share plus its load; its
// memory does not change; a node carries its pods' load.
func TestLoadUsage(t *testing.T) {
	p := runningPod("default", "web", "node-1", container("app", "100m", "64Mi", "", ""))
	l := Load{}
	l.add("default", "web", "app", 900_000_000)
	idle, loaded := ContainerUsage(p, &p.Spec.Containers[0]), l.ContainerUsage(p, &p.Spec.Containers[0])
	wantCPU := idle.Cpu().DeepCopy()
	wantCPU.Add(resource.MustParse("900m"))
	if got := loaded.Cpu(); got.Cmp(wantCPU) != 0 {
		t.Errorf("loaded cpu = %s, want %s (idle %s + 900m)", got, wantCPU.String(), idle.Cpu())
	}
	if idle.Cpu().MilliValue() != CPUShare("default", "web", "app") {
		t.Errorf("idle cpu = %s, want %dm (%d%% of 100m)", idle.Cpu(), CPUShare("default", "web", "app"), CPUShare("default", "web", "app"))
	}
	if !loaded.Memory().Equal(*idle.Memory()) {
		t.Errorf("loaded memory = %s, want the idle %s", loaded.Memory(), idle.Memory())
	}
	node, idleNode := l.NodeUsage([]*corev1.Pod{p}), NodeUsage([]*corev1.Pod{p})
	wantNode := idleNode.Cpu().DeepCopy()
	wantNode.Add(resource.MustParse("900m"))
	if got := node.Cpu(); got.Cmp(wantNode) != 0 {
		t.Errorf("node cpu = %s, want %s", got, wantNode.String())
	}
}
