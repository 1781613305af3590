package tui

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestKubeWatch(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "nginx", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "big.1", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "big"}, Type: "Warning", Reason: "FailedScheduling",
		Message: "0/1 nodes are available: 1 Insufficient cpu.", Count: 1, LastTimestamp: metav1.NewTime(t0)}
	w := startKubeWatch(fake.NewSimpleClientset(node, pod, pending, ev))
	defer w.stop()

	deadline := time.Now().Add(waitTimeout)
	var snap clusterSnapshot
	for time.Now().Before(deadline) {
		s, ok := w.nextSnapshot()
		if !ok {
			t.Fatal("watch stopped")
		}
		if len(s.Nodes) == 1 && len(s.Nodes[0].Pods) == 1 && len(s.Pending) == 1 {
			snap = s
			break
		}
	}
	if len(snap.Nodes) != 1 {
		t.Fatalf("no complete snapshot before the deadline: %+v", snap)
	}
	n := snap.Nodes[0]
	if !n.Ready || n.CPU != 4000 || n.ReqCPU != 500 || n.ReqMemory != 128<<20 {
		t.Errorf("node = %+v, want Ready, cpu 4000m, requests 500m and 128Mi", n)
	}
	if snap.Pending[0].Name != "big" {
		t.Errorf("pending = %+v, want big", snap.Pending)
	}
	got := w.nextEvents()
	if len(got) != 1 || got[0].Reason != "FailedScheduling" || got[0].Object != "pod/big" {
		t.Errorf("events = %+v, want FailedScheduling of pod/big", got)
	}
}
