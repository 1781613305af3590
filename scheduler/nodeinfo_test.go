package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestPodRequests(t *testing.T) {
	const mi = 1024 * 1024
	withOverhead := func(cpu string) podOpt {
		return func(p *corev1.Pod) { p.Spec.Overhead = requests(cpu, "") }
	}
	withPodLevel := func(cpu, memory string) podOpt {
		return func(p *corev1.Pod) { p.Spec.Resources = &corev1.ResourceRequirements{Requests: requests(cpu, memory)} }
	}
	zeroCPU := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}
	}
	tests := []struct {
		name        string
		pod         *corev1.Pod
		want        Resources
		wantNonZero Resources
	}{
		{"no requests", makePod("p"),
			Resources{}, Resources{MilliCPU: 100, Memory: 200 * mi}},
		{"containers add up", makePod("p", withRequests("1", "1Gi"), withContainer("b", "500m", "512Mi")),
			Resources{MilliCPU: 1500, Memory: 1536 * mi}, Resources{MilliCPU: 1500, Memory: 1536 * mi}},
		{"a container without requests gets defaults only for scoring", makePod("p", withRequests("1", "1Gi"), withContainer("b", "", "")),
			Resources{MilliCPU: 1000, Memory: 1024 * mi}, Resources{MilliCPU: 1100, Memory: 1224 * mi}},
		{"an explicit zero is kept", makePod("p", zeroCPU),
			Resources{}, Resources{MilliCPU: 0, Memory: 200 * mi}},
		{"init containers: the largest one, if above the containers",
			// kube-scheduler's example: init 2/1Gi and 2/3Gi, containers
			// 2/1Gi and 1/1Gi → 3 cpu, 3Gi.
			makePod("p", withRequests("2", "1Gi"), withContainer("b", "1", "1Gi"),
				withInit("i1", "2", "1Gi", false), withInit("i2", "2", "3Gi", false)),
			Resources{MilliCPU: 3000, Memory: 3072 * mi}, Resources{MilliCPU: 3000, Memory: 3072 * mi}},
		{"init container larger than all containers", makePod("p", withRequests("1", ""), withInit("i", "5", "", false)),
			Resources{MilliCPU: 5000}, Resources{MilliCPU: 5000, Memory: 200 * mi}},
		{"sidecar runs with the containers", makePod("p", withRequests("2", ""), withInit("proxy", "1", "", true)),
			Resources{MilliCPU: 3000}, Resources{MilliCPU: 3000, Memory: 400 * mi}},
		{"init container after a sidecar runs beside it",
			// proxy (1) starts, then job (3) runs beside it: 4; then the
			// app (1) with the proxy: 2.
			makePod("p", withRequests("1", ""), withInit("proxy", "1", "", true), withInit("job", "3", "", false)),
			Resources{MilliCPU: 4000}, Resources{MilliCPU: 4000, Memory: 400 * mi}},
		{"init container before a sidecar runs alone",
			// job (3) alone, then proxy (1) and app (1): max(3, 2) = 3.
			makePod("p", withRequests("1", ""), withInit("job", "3", "", false), withInit("proxy", "1", "", true)),
			Resources{MilliCPU: 3000}, Resources{MilliCPU: 3000, Memory: 400 * mi}},
		{"overhead comes on top", makePod("p", withRequests("1", ""), withOverhead("250m")),
			Resources{MilliCPU: 1250}, Resources{MilliCPU: 1250, Memory: 200 * mi}},
		{"pod-level requests replace the containers'", makePod("p", withRequests("1", "1Gi"), withPodLevel("3", "")),
			Resources{MilliCPU: 3000, Memory: 1024 * mi}, Resources{MilliCPU: 3000, Memory: 1024 * mi}},
		{"pod-level requests: defaults only where nobody asked", makePod("p", withPodLevel("3", "")),
			Resources{MilliCPU: 3000}, Resources{MilliCPU: 3000, Memory: 200 * mi}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PodRequests(tt.pod, false); got != tt.want {
				t.Errorf("PodRequests = %+v, want %+v", got, tt.want)
			}
			if got := PodRequests(tt.pod, true); got != tt.wantNonZero {
				t.Errorf("PodRequests(nonZero) = %+v, want %+v", got, tt.wantNonZero)
			}
		})
	}
}

func TestNodeInfoAddRemove(t *testing.T) {
	n := NewNodeInfo(makeNode("n", "4", "8Gi", 110), makePod("a", withRequests("1", "1Gi")), makePod("b"))
	if want := (Resources{MilliCPU: 1000, Memory: 1 << 30}); n.Requested != want {
		t.Errorf("Requested = %+v, want %+v", n.Requested, want)
	}
	if want := (Resources{MilliCPU: 1100, Memory: 1<<30 + 200<<20}); n.NonZeroRequested != want {
		t.Errorf("NonZeroRequested = %+v, want %+v", n.NonZeroRequested, want)
	}
	clone := n.Clone()
	if !n.RemovePod(makePod("a")) {
		t.Fatalf("RemovePod(a) = false, want true")
	}
	if n.RemovePod(makePod("a")) {
		t.Errorf("RemovePod(a) twice = true, want false")
	}
	if want := (Resources{}); n.Requested != want {
		t.Errorf("after removal Requested = %+v, want %+v", n.Requested, want)
	}
	if len(n.Pods) != 1 || n.Pods[0].Pod.Name != "b" {
		t.Errorf("after removal pods = %v, want [b]", podNames(n))
	}
	if len(clone.Pods) != 2 || clone.Requested.MilliCPU != 1000 {
		t.Errorf("the clone changed with the original: pods %v, requested %+v", podNames(clone), clone.Requested)
	}
}

func podNames(n *NodeInfo) []string {
	var out []string
	for _, p := range n.Pods {
		out = append(out, p.Pod.Name)
	}
	return out
}
