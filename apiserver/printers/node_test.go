package printers_test

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Node cells, in column order.
const (
	nodeName = iota
	nodeStatus
	nodeRoles
	nodeAge
	nodeVersion
)

func readyCondition(s corev1.ConditionStatus) corev1.NodeCondition {
	return corev1.NodeCondition{Type: corev1.NodeReady, Status: s}
}

func TestNodeStatus(t *testing.T) {
	pressure := corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}
	tests := []struct {
		name          string
		conditions    []corev1.NodeCondition
		unschedulable bool
		want          string
	}{
		{"ready", []corev1.NodeCondition{pressure, readyCondition(corev1.ConditionTrue)}, false, "Ready"},
		{"kubelet reports not ready", []corev1.NodeCondition{readyCondition(corev1.ConditionFalse)}, false, "NotReady"},
		{"kubelet stopped posting status", []corev1.NodeCondition{readyCondition(corev1.ConditionUnknown)}, false, "NotReady"},
		{"no Ready condition yet", []corev1.NodeCondition{pressure}, false, "Unknown"},
		{"cordoned", []corev1.NodeCondition{readyCondition(corev1.ConditionTrue)}, true, "Ready,SchedulingDisabled"},
		{"cordoned and not ready", []corev1.NodeCondition{readyCondition(corev1.ConditionFalse)}, true, "NotReady,SchedulingDisabled"},
		{"cordoned without conditions", nil, true, "Unknown,SchedulingDisabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
				Spec:       corev1.NodeSpec{Unschedulable: tt.unschedulable},
				Status:     corev1.NodeStatus{Conditions: tt.conditions},
			}
			if got := MustRow(t, node)[nodeStatus]; got != tt.want {
				t.Errorf("STATUS = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodeRoles(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"no role labels", map[string]string{"kubernetes.io/hostname": "node-1"}, "<none>"},
		{"control plane", map[string]string{"node-role.kubernetes.io/control-plane": ""}, "control-plane"},
		{"several, sorted", map[string]string{"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": ""}, "control-plane,master"},
		{"legacy kubernetes.io/role label", map[string]string{"kubernetes.io/role": "worker"}, "worker"},
		{"both label styles, duplicates merged", map[string]string{"kubernetes.io/role": "worker", "node-role.kubernetes.io/worker": "true", "node-role.kubernetes.io/gpu": ""}, "gpu,worker"},
		{"empty role names ignored", map[string]string{"node-role.kubernetes.io/": "", "kubernetes.io/role": ""}, "<none>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: tt.labels}}
			if got := MustRow(t, node)[nodeRoles]; got != tt.want {
				t.Errorf("ROLES = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNodeCells checks whole rows, the -o wide cells included.
func TestNodeCells(t *testing.T) {
	tests := []struct {
		name string
		node *corev1.Node
		want []any
	}{
		{
			name: "kind control-plane node",
			node: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{
					Name:              "kind-control-plane",
					CreationTimestamp: ago(25 * time.Hour),
					Labels:            map[string]string{"node-role.kubernetes.io/control-plane": ""},
				},
				Status: corev1.NodeStatus{
					Conditions: []corev1.NodeCondition{readyCondition(corev1.ConditionTrue)},
					Addresses: []corev1.NodeAddress{
						{Type: corev1.NodeInternalIP, Address: "172.18.0.2"},
						{Type: corev1.NodeHostName, Address: "kind-control-plane"},
					},
					NodeInfo: corev1.NodeSystemInfo{
						KubeletVersion:          "v1.32.2",
						OSImage:                 "Debian GNU/Linux 12 (bookworm)",
						KernelVersion:           "6.8.0-51-generic",
						Architecture:            "amd64",
						ContainerRuntimeVersion: "containerd://2.0.2",
					},
				},
			},
			want: []any{"kind-control-plane", "Ready", "control-plane", "25h", "v1.32.2",
				"172.18.0.2", "<none>", "Debian GNU/Linux 12 (bookworm)", "6.8.0-51-generic (amd64)", "containerd://2.0.2"},
		},
		{
			name: "cloud node with two internal IPs",
			node: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-7", CreationTimestamp: ago(10 * day)},
				Status: corev1.NodeStatus{
					Conditions: []corev1.NodeCondition{readyCondition(corev1.ConditionTrue)},
					Addresses: []corev1.NodeAddress{
						{Type: corev1.NodeInternalIP, Address: "10.0.1.7"},
						{Type: corev1.NodeInternalIP, Address: "10.0.1.8"},
						{Type: corev1.NodeExternalIP, Address: "3.120.4.5"},
					},
					NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.31.4", OSImage: "Ubuntu 22.04.5 LTS", KernelVersion: "6.5.0-1022-aws", Architecture: "arm64", ContainerRuntimeVersion: "containerd://1.7.22"},
				},
			},
			want: []any{"ip-10-0-1-7", "Ready", "<none>", "10d", "v1.31.4",
				"10.0.1.7", "3.120.4.5", "Ubuntu 22.04.5 LTS", "6.5.0-1022-aws (arm64)", "containerd://1.7.22"},
		},
		{
			name: "registered, nothing reported yet",
			node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-3", CreationTimestamp: ago(4 * time.Second)}},
			want: []any{"node-3", "Unknown", "<none>", "4s", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustRow(t, tt.node); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %q\nwant    %q", got, tt.want)
			}
		})
	}
}
