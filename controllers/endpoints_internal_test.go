package controllers

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// TestDesiredSubsetsRepacked: ready pods' addresses and unready ones'
// share one subset with both ports; a pod without the named port is left
// out of that port's subset; being deleted leaves a pod out (unless
// publishNotReadyAddresses, which puts every address in addresses).
func TestDesiredSubsetsRepacked(t *testing.T) {
	svc := testService(intstr.FromString("http"))
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9100, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9100)})
	ready, unready := testEndpointPod("a", "10.244.1.1", 8080, true), testEndpointPod("b", "10.244.1.2", 8080, false)
	subsets := repackSubsets(desiredSubsets(svc, []*corev1.Pod{ready, unready}))
	if len(subsets) != 1 {
		t.Fatalf("%d subsets, want 1: %+v", len(subsets), subsets)
	}
	s := subsets[0]
	if len(s.Addresses) != 1 || s.Addresses[0].IP != "10.244.1.1" || len(s.NotReadyAddresses) != 1 || s.NotReadyAddresses[0].IP != "10.244.1.2" {
		t.Errorf("addresses %v, notReady %v; want a ready, b not ready", s.Addresses, s.NotReadyAddresses)
	}
	if got := fmt.Sprint(portNums(s.Ports)); got != "[http:8080 metrics:9100]" {
		t.Errorf("ports %s, want [http:8080 metrics:9100]", got)
	}
	svc.Spec.PublishNotReadyAddresses = true
	s = repackSubsets(desiredSubsets(svc, []*corev1.Pod{ready, unready}))[0]
	if len(s.Addresses) != 2 || len(s.NotReadyAddresses) != 0 {
		t.Errorf("publishNotReadyAddresses: %d ready, %d not ready, want 2 and 0", len(s.Addresses), len(s.NotReadyAddresses))
	}
}

func portNums(ports []corev1.EndpointPort) []string {
	var out []string
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%s:%d", p.Name, p.Port))
	}
	return out
}

// TestTruncateEndpoints: past 1000 addresses the not-ready ones go
// first, then only ready ones are kept.
func TestTruncateEndpoints(t *testing.T) {
	tests := []struct {
		ready, notReady         int
		cut                     bool
		wantReady, wantNotReady int
	}{
		{600, 400, false, 600, 400},
		{900, 300, true, 900, 100},
		{1200, 50, true, 1000, 0},
	}
	for _, tt := range tests {
		ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{
			Addresses: make([]corev1.EndpointAddress, tt.ready), NotReadyAddresses: make([]corev1.EndpointAddress, tt.notReady)}}}
		cut := truncateEndpoints(ep)
		s := ep.Subsets[0]
		if cut != tt.cut || len(s.Addresses) != tt.wantReady || len(s.NotReadyAddresses) != tt.wantNotReady {
			t.Errorf("%d+%d: cut %v, kept %d+%d; want %v, %d+%d", tt.ready, tt.notReady, cut,
				len(s.Addresses), len(s.NotReadyAddresses), tt.cut, tt.wantReady, tt.wantNotReady)
		}
	}
}

// TestTriggerTime: the first sync of a Service reports its creation;
// later ones the earliest Ready transition that moved since, or nothing
// (the annotation is then removed, as upstream's): what the annotation
// of both controllers shows, from k8s.io/endpointslice's tracker.
func TestTriggerTime(t *testing.T) {
	created := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	svc := testService(intstr.FromInt32(80))
	svc.CreationTimestamp = metav1.NewTime(created)
	pod := func(name string, at time.Time) *corev1.Pod {
		p := testEndpointPod(name, "10.244.1.1", 80, true)
		p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(at)
		return p
	}
	tr := endpointsliceutil.NewTriggerTimeTracker()
	steps := []struct {
		pods []*corev1.Pod
		want time.Time
	}{
		{[]*corev1.Pod{pod("a", created.Add(time.Minute))}, created},
		{[]*corev1.Pod{pod("a", created.Add(time.Minute))}, time.Time{}},
		{[]*corev1.Pod{pod("a", created.Add(3*time.Minute)), pod("b", created.Add(2*time.Minute))}, created.Add(2 * time.Minute)},
	}
	for i, s := range steps {
		if got := tr.ComputeEndpointLastChangeTriggerTime(svc.Namespace, svc, s.pods); !got.Equal(s.want) {
			t.Errorf("sync %d: trigger time %v, want %v", i+1, got, s.want)
		}
	}
	ann := map[string]string{}
	setTriggerTime(ann, created)
	if got := ann[corev1.EndpointsLastChangeTriggerTime]; got != "2026-01-01T10:00:00Z" {
		t.Errorf("annotation %q, want RFC 3339", got)
	}
	setTriggerTime(ann, time.Time{})
	if _, ok := ann[corev1.EndpointsLastChangeTriggerTime]; ok {
		t.Error("a zero trigger time left the annotation")
	}
}
