package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/controllers"
)

// TestDeploymentScalingEvents: creating a Deployment of 3 and scaling it
// to 5 records the Events kubectl describe deployment lists, worded as
// upstream's, from the component deployment-controller.
func TestDeploymentScalingEvents(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	scale := []byte(`{"spec":{"replicas":5}}`)
	if _, err := admin.AppsV1().Deployments("default").Patch(context.Background(), "web", types.MergePatchType, scale, metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatalf("scale: %v", err)
	}
	rs := replicaSetsOf(t, admin, "web")[0].Name
	want := []string{fmt.Sprintf("Scaled up replica set %s from 0 to 3", rs), fmt.Sprintf("Scaled up replica set %s from 3 to 5", rs)}
	var got []string
	waitFor(t, "ScalingReplicaSet events", func(ctx context.Context) (bool, error) {
		list, err := admin.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = nil
		for _, ev := range list.Items {
			if ev.InvolvedObject.Kind == "Deployment" && ev.InvolvedObject.Name == "web" && ev.Reason == controllers.ReasonScalingReplicaSet &&
				ev.Type == corev1.EventTypeNormal && ev.Source.Component == controllers.DeploymentControllerName {
				got = append(got, ev.Message)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				return false, nil
			}
		}
		return true, nil
	})
	if len(got) != len(want) {
		t.Errorf("events %q, want exactly %q", got, want)
	}
}
