package scenarios

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestProbesShowWhatHeld: when an expectation that reads an object
// holds, it notes the fields it checked as the object had them, in both
// languages; when it does not hold, nothing.
func TestProbesShowWhatHeld(t *testing.T) {
	kubernetes := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "127.0.0.1"}, {IP: "127.0.0.2"}},
			Ports: []corev1.EndpointPort{{Name: "https", Port: 6443, Protocol: corev1.ProtocolTCP}}}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			Reason: "KubeletReady", Message: "kubelet is posting ready status"}}}}
	for _, tc := range []struct {
		name string
		e    prober
		want []flow.Text
	}{
		{"endpoints", &EndpointsExpectation{Service: "kubernetes", Namespace: "default", From: "Endpoints", Ready: 2},
			[]flow.Text{{En: "Endpoints kubernetes: ready: 127.0.0.1, 127.0.0.2; not ready: none; ports: https 6443/TCP",
				Zh: "Endpoints kubernetes：就绪：127.0.0.1, 127.0.0.2；未就绪：无；端口：https 6443/TCP"}}},
		{"endpoints not as expected", &EndpointsExpectation{Service: "kubernetes", Namespace: "default", From: "Endpoints", Ready: 1}, nil},
		{"node ready", &NodeReadyExpectation{Node: "node-2"},
			[]flow.Text{{En: `Node node-2: Ready=True, reason KubeletReady, message "kubelet is posting ready status"`,
				Zh: `Node node-2：Ready=True，原因 KubeletReady，消息 "kubelet is posting ready status"`}}},
		{"taints", &NodeTaintsExpectation{Node: "node-2", Taints: []string{"dedicated:NoSchedule"}},
			[]flow.Text{{En: "Node node-2: taints dedicated=db:NoSchedule", Zh: "Node node-2：污点 dedicated=db:NoSchedule"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := probePlayer(t, kubernetes, node)
			_, ok, _ := tc.e.probe(context.Background(), p)
			got := p.takeSeen()
			if ok != (tc.want != nil) || len(got) != len(tc.want) {
				t.Fatalf("probe held %v, noted %q; want %q", ok, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("noted %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}
