package controllers_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodGCDeletesPodsOfDeletedNode removes a node (its kubelet stopped,
// its Node deleted) that runs a Deployment's pod: after the quarantine
// the pod garbage collector force-deletes the pod no kubelet will ever
// finish, and the replacement runs elsewhere.
func TestPodGCDeletesPodsOfDeletedNode(t *testing.T) {
	c, admin := startNodeFailureCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 1))
	waitRolledOut(t, admin, "web")
	pod := podsOf(t, admin, "web")[0]
	if err := c.RemoveNode(context.Background(), pod.Spec.NodeName); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pod "+pod.Name+" of the deleted node gone", func(ctx context.Context) (bool, error) {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range list.Items {
			if p.Name == pod.Name {
				return false, nil
			}
		}
		return true, nil
	})
	waitFor(t, "a replacement on another node", func(ctx context.Context) (bool, error) {
		pods := podsOf(t, admin, "web")
		return len(pods) == 1 && pods[0].Spec.NodeName != pod.Spec.NodeName && pods[0].Status.Phase == "Running", nil
	})
}
