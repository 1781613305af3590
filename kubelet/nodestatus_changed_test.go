package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodeStatusChanged: heartbeat times and the conditions' order are
// not a change (as upstream's nodeStatusHasChanged); a condition's status,
// a condition more, or any other field is; neither status is modified.
func TestNodeStatusChanged(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	base := func() *corev1.NodeStatus {
		return &corev1.NodeStatus{
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: t0, LastTransitionTime: t0},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: t0, LastTransitionTime: t0},
			},
		}
	}
	for _, tt := range []struct {
		name   string
		change func(s *corev1.NodeStatus)
		want   bool
	}{
		{"nothing", func(*corev1.NodeStatus) {}, false},
		{"heartbeats", func(s *corev1.NodeStatus) {
			s.Conditions[0].LastHeartbeatTime, s.Conditions[1].LastHeartbeatTime = t1, t1
		}, false},
		{"order", func(s *corev1.NodeStatus) { s.Conditions[0], s.Conditions[1] = s.Conditions[1], s.Conditions[0] }, false},
		{"a condition's status", func(s *corev1.NodeStatus) { s.Conditions[0].Status = corev1.ConditionFalse }, true},
		{"a transition time", func(s *corev1.NodeStatus) { s.Conditions[1].LastTransitionTime = t1 }, true},
		{"a condition more", func(s *corev1.NodeStatus) {
			s.Conditions = append(s.Conditions, corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse})
		}, true},
		{"capacity", func(s *corev1.NodeStatus) { s.Capacity[corev1.ResourceCPU] = resource.MustParse("8") }, true},
	} {
		old, cur := base(), base()
		tt.change(cur)
		curHeartbeat := cur.Conditions[0].LastHeartbeatTime
		if got := nodeStatusChanged(old, cur); got != tt.want {
			t.Errorf("%s: changed = %v, want %v", tt.name, got, tt.want)
		}
		if !old.Conditions[0].LastHeartbeatTime.Equal(&t0) || !cur.Conditions[0].LastHeartbeatTime.Equal(&curHeartbeat) {
			t.Errorf("%s: a status was modified", tt.name)
		}
	}
}
