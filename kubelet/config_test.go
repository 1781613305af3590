package kubelet

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes/fake"
)

func TestDefaults(t *testing.T) {
	nodes := DefaultNodes(3)
	if len(nodes) != 3 || nodes[0].Name != "node-1" || nodes[2].Name != "node-3" {
		t.Fatalf("DefaultNodes(3) = %v", nodes)
	}
	n := nodes[0]
	if n.CPU.String() != "4" || n.Memory.String() != "8Gi" || n.Pods != 110 {
		t.Errorf("default node %s cpu, %s memory, %d pods; want 4, 8Gi, 110", n.CPU.String(), n.Memory.String(), n.Pods)
	}
	a := n.Allocatable()
	for name, want := range map[corev1.ResourceName]string{
		corev1.ResourceCPU: "4", corev1.ResourceMemory: "8092Mi", corev1.ResourcePods: "110", corev1.ResourceEphemeralStorage: "92160Mi",
	} {
		q := a[name]
		if q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("allocatable %s = %s, want %s", name, q.String(), want)
		}
	}
	for name, want := range map[string]struct{ cidr, ip string }{
		"node-1":  {"10.244.1.0/24", "192.168.0.11"},
		"node-12": {"10.244.12.0/24", "192.168.0.22"},
	} {
		if got := DefaultPodCIDR(name); got != want.cidr {
			t.Errorf("DefaultPodCIDR(%s) = %s, want %s", name, got, want.cidr)
		}
		if got := DefaultNodeIP(name); got != want.ip {
			t.Errorf("DefaultNodeIP(%s) = %s, want %s", name, got, want.ip)
		}
	}
	if a, b := DefaultNodeIP("worker"), DefaultNodeIP("worker"); a != b || !strings.HasPrefix(a, "192.168.") {
		t.Errorf("DefaultNodeIP(worker) = %s, %s: want one stable 192.168 address", a, b)
	}
	cfg := NewConfig(n, fake.NewClientset())
	if cfg.Speed != 1 || cfg.Delays.ImagePull != 2*time.Second || cfg.Delays.ContainerCreate != 300*time.Millisecond ||
		cfg.LeaseDuration != 40*time.Second || cfg.StatusUpdateFrequency != 10*time.Second || cfg.PodCIDR != "10.244.1.0/24" {
		t.Errorf("NewConfig = %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"bad node name", func(c *Config) { c.Node.Name = "Node_1" }, "node name"},
		{"no client", func(c *Config) { c.Client = nil }, "no API client"},
		{"negative speed", func(c *Config) { c.Speed = -1 }, "negative"},
		{"negative delay", func(c *Config) { c.Delays.ImagePull = -time.Second }, "delays"},
		{"no lease duration", func(c *Config) { c.LeaseDuration = 0 }, "lease"},
		{"no status frequency", func(c *Config) { c.StatusUpdateFrequency = 0 }, "status update"},
		{"no cpu", func(c *Config) { c.Node.CPU = resource.Quantity{} }, "cpu"},
		{"no pods", func(c *Config) { c.Node.Pods = 0 }, "pods"},
		{"bad pod CIDR", func(c *Config) { c.PodCIDR = "10.244.1.0" }, "pod CIDR"},
		{"IPv6 pod CIDR", func(c *Config) { c.PodCIDR = "fd00::/64" }, "IPv4"},
		{"bad node IP", func(c *Config) { c.NodeIP = "node-1" }, "node IP"},
		{"label NodeRestriction refuses", func(c *Config) { c.Node.Labels = map[string]string{"node-role.kubernetes.io/control-plane": ""} }, "node-role.kubernetes.io/control-plane"},
		{"bad label value", func(c *Config) { c.Node.Labels = map[string]string{"disk": "s s d"} }, "label"},
		{"bad taint effect", func(c *Config) { c.Node.Taints = []corev1.Taint{{Key: "k", Effect: "Sometimes"}} }, "effect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := NewConfig(DefaultNodeSpec("node-1"), fake.NewClientset())
			tt.change(cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error about %q", err, tt.want)
			}
		})
	}
	ok := NewConfig(DefaultNodeSpec("node-1"), fake.NewClientset())
	ok.Node.Labels = map[string]string{"disktype": "ssd", "node.kubernetes.io/pool": "a", "topology.kubernetes.io/zone": "z1"}
	ok.Speed = 0
	if err := ok.Validate(); err != nil {
		t.Errorf("allowed labels and speed 0: %v", err)
	}
}

func TestNodeStatus(t *testing.T) {
	cfg := NewConfig(DefaultNodeSpec("node-1"), fake.NewClientset())
	cfg.Node.Labels = map[string]string{"disktype": "ssd"}
	cfg.Node.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, events := k.initialNode(t0)
	if got, want := strings.Join(events, " "), "NodeHasSufficientMemory NodeHasNoDiskPressure NodeHasSufficientPID"; got != want {
		t.Errorf("events of a new node %q, want %q", got, want)
	}
	var conds []string
	for _, c := range n.Status.Conditions {
		conds = append(conds, string(c.Type)+"="+string(c.Status)+"("+c.Reason+": "+c.Message+")")
	}
	wantConds := []string{
		"MemoryPressure=False(KubeletHasSufficientMemory: kubelet has sufficient memory available)",
		"DiskPressure=False(KubeletHasNoDiskPressure: kubelet has no disk pressure)",
		"PIDPressure=False(KubeletHasSufficientPID: kubelet has sufficient PID available)",
		"Ready=True(KubeletReady: kubelet is posting ready status)",
	}
	diffLines(t, "conditions", conds, wantConds)
	info := n.Status.NodeInfo
	switch {
	case info.KubeletVersion != "v1.37.2":
		t.Errorf("kubeletVersion %q, want v1.37.2 (from k8s.io/api v0.37.2)", info.KubeletVersion)
	case info.ContainerRuntimeVersion != "kubesim://1.0" || info.OperatingSystem != "linux" || info.Architecture != "amd64" || info.OSImage == "" || info.KernelVersion == "":
		t.Errorf("nodeInfo %+v", info)
	case len(n.Status.Addresses) != 2 || n.Status.Addresses[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "192.168.0.11"}) ||
		n.Status.Addresses[1] != (corev1.NodeAddress{Type: corev1.NodeHostName, Address: "node-1"}):
		t.Errorf("addresses %v", n.Status.Addresses)
	case n.Spec.PodCIDR != "10.244.1.0/24" || len(n.Spec.PodCIDRs) != 1:
		t.Errorf("podCIDR %q %v", n.Spec.PodCIDR, n.Spec.PodCIDRs)
	case len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != "dedicated":
		t.Errorf("taints %v", n.Spec.Taints)
	}
	for k, v := range map[string]string{"kubernetes.io/hostname": "node-1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"beta.kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "kubesim", "disktype": "ssd"} {
		if n.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, n.Labels[k], v)
		}
	}
	if bad := forbiddenLabels(n.Labels); len(bad) > 0 {
		t.Errorf("NodeRestriction would refuse the labels %v", bad)
	}

	// A later report: new heartbeats, same transition times, no events.
	later := t0.Add(10 * time.Second)
	n2 := n.DeepCopy()
	if events := k.setNodeStatus(n2, later); len(events) != 0 {
		t.Errorf("events of an unchanged node: %v", events)
	}
	for _, c := range n2.Status.Conditions {
		if !c.LastHeartbeatTime.Time.Equal(later) || !c.LastTransitionTime.Time.Equal(t0) {
			t.Errorf("%s heartbeat %v transition %v, want %v %v", c.Type, c.LastHeartbeatTime, c.LastTransitionTime, later, t0)
		}
	}
	patch, err := nodeStatusPatch(n, n2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(patch), `"lastHeartbeatTime":"2026-03-01T12:00:10Z"`) || strings.Contains(string(patch), "spec") {
		t.Errorf("status patch %s", patch)
	}

	// A node that was not ready becomes ready: NodeReady.
	n3 := n.DeepCopy()
	n3.Status.Conditions[3].Status = corev1.ConditionUnknown
	if events := k.setNodeStatus(n3, later); strings.Join(events, " ") != "NodeReady" {
		t.Errorf("events %v, want NodeReady", events)
	}
}
