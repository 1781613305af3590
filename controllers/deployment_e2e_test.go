package controllers_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeploymentReachesReadyReplicas: a Deployment of 3 gets one
// ReplicaSet <deployment>-<pod-template-hash> at revision 1, whose 3
// pods (named <replicaset>-xxxxx, controlled by it, blocking its
// deletion) become ready; the status and conditions are what kubectl
// rollout status reads.
func TestDeploymentReachesReadyReplicas(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	d := waitRolledOut(t, admin, "web")
	rss := replicaSetsOf(t, admin, "web")
	if len(rss) != 1 {
		t.Fatalf("%d replicasets, want 1", len(rss))
	}
	rs := rss[0]
	hash := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if hash == "" || rs.Name != "web-"+hash || rs.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] != hash {
		t.Errorf("replicaset %s, labels %v, selector %v: want web-<pod-template-hash> with the hash in both", rs.Name, rs.Labels, rs.Spec.Selector)
	}
	if got := rs.Annotations["deployment.kubernetes.io/revision"]; got != "1" {
		t.Errorf("replicaset revision %q, want 1", got)
	}
	if got := d.Annotations["deployment.kubernetes.io/revision"]; got != "1" {
		t.Errorf("deployment revision %q, want 1", got)
	}
	if ref := metav1.GetControllerOf(&rs); ref == nil || ref.UID != d.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("replicaset controller ref %+v, want the deployment's, blocking", ref)
	}
	pods := podsOf(t, admin, "web")
	if len(pods) != 3 {
		t.Fatalf("%d pods, want 3", len(pods))
	}
	for _, p := range pods {
		ref := metav1.GetControllerOf(&p)
		if ref == nil || ref.UID != rs.UID || ref.Kind != "ReplicaSet" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("pod %s controller ref %+v, want replicaset %s, blocking", p.Name, ref, rs.Name)
		}
		if p.GenerateName != rs.Name+"-" || !strings.HasPrefix(p.Name, rs.Name+"-") {
			t.Errorf("pod %s generateName %q, want %q", p.Name, p.GenerateName, rs.Name+"-")
		}
	}
	if rs.Status.FullyLabeledReplicas != 3 || rs.Status.ObservedGeneration != rs.Generation {
		t.Errorf("replicaset status %+v, want fullyLabeledReplicas 3 at generation %d", rs.Status, rs.Generation)
	}
	wantCond := map[appsv1.DeploymentConditionType]string{appsv1.DeploymentAvailable: "MinimumReplicasAvailable", appsv1.DeploymentProgressing: "NewReplicaSetAvailable"}
	waitFor(t, "conditions", func(ctx context.Context) (bool, error) {
		d, err := admin.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for typ, reason := range wantCond {
			if c := condition(d, typ); c == nil || c.Status != corev1.ConditionTrue || c.Reason != reason {
				return false, nil
			}
		}
		return true, nil
	})
}
