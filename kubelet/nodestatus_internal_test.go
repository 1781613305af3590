package kubelet

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestNodeStatusReportedWhenChangedOrDue: after registering, the kubelet
// checks its Node's status at every tick but patches it only when it
// changed (heartbeats aside) or StatusReportFrequency has passed since
// the last report, as upstream's tryUpdateNodeStatus.
func TestNodeStatusReportedWhenChangedOrDue(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	client := fake.NewSimpleClientset()
	cfg := NewConfig(DefaultNodeSpec("node-1"), client)
	cfg.Clock = clk
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	k.recorder = record.NewFakeRecorder(100)
	if err := k.tryRegister(ctx); err != nil {
		t.Fatalf("register: %v", err)
	}
	patches := func() int {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "patch" && a.GetResource().Resource == "nodes" && a.GetSubresource() == "status" {
				n++
			}
		}
		return n
	}
	check := func(step time.Duration, wantPatches int, what string) {
		t.Helper()
		clk.Step(step)
		if err := k.updateNodeStatus(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := patches(); got != wantPatches {
			t.Errorf("%s: %d status patches so far, want %d", what, got, wantPatches)
		}
	}
	check(DefaultStatusUpdateFrequency, 0, "10 s after registering, unchanged")
	check(DefaultStatusUpdateFrequency, 0, "20 s after registering, unchanged")

	// Something else (the node lifecycle controller) sets Ready to
	// Unknown: the next check puts it back.
	node, err := client.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			node.Status.Conditions[i].Status = corev1.ConditionUnknown
		}
	}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check(DefaultStatusUpdateFrequency, 1, "Ready set to Unknown by another")

	check(DefaultStatusReportFrequency-DefaultStatusUpdateFrequency, 1, "just under 5 min after the last report")
	check(DefaultStatusUpdateFrequency, 2, "5 min after the last report")

	var gets int
	for _, a := range client.Actions() {
		if g, ok := a.(k8stesting.GetAction); ok && a.GetVerb() == "get" && a.GetResource().Resource == "nodes" && g.GetName() == "node-1" {
			gets++
		}
	}
	if gets != 6 {
		t.Errorf("%d GETs of the Node, want one per check (5) and the test's", gets)
	}
}
