package controllers_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestScaleThroughScaleSubresource: kubectl scale writes
// deployments/scale; the one ReplicaSet follows, and 5 pods are ready.
func TestScaleThroughScaleSubresource(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 5}}
	if _, err := admin.AppsV1().Deployments("default").UpdateScale(context.Background(), "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	waitRolledOut(t, admin, "web")
	rss := replicaSetsOf(t, admin, "web")
	if len(rss) != 1 || *rss[0].Spec.Replicas != 5 || rss[0].Annotations["deployment.kubernetes.io/desired-replicas"] != "5" {
		t.Fatalf("replicasets %d, want one of 5 replicas with desired-replicas 5", len(rss))
	}
	if n := len(podsOf(t, admin, "web")); n != 5 {
		t.Errorf("%d pods, want 5", n)
	}
}

// TestRolloutUndo: kubectl rollout undo patches the Deployment's
// template back to the previous ReplicaSet's (client-side); the
// controller finds that ReplicaSet, gives it revision 3 with 1 in its
// revision-history, and scales it back up.
func TestRolloutUndo(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	first := replicaSetsOf(t, admin, "web")[0]
	setImage(t, admin, "web", "nginx:1.27")
	waitRolledOut(t, admin, "web")
	undo(t, admin, "web", first.Spec.Template)
	waitRolledOut(t, admin, "web")
	for _, rs := range replicaSetsOf(t, admin, "web") {
		if rs.UID != first.UID {
			if *rs.Spec.Replicas != 0 {
				t.Errorf("replicaset %s of revision 2 has %d replicas, want 0", rs.Name, *rs.Spec.Replicas)
			}
			continue
		}
		if *rs.Spec.Replicas != 3 || rs.Annotations["deployment.kubernetes.io/revision"] != "3" || rs.Annotations["deployment.kubernetes.io/revision-history"] != "1" {
			t.Errorf("first replicaset: replicas %d, annotations %v; want 3, revision 3, revision-history 1", *rs.Spec.Replicas, rs.Annotations)
		}
	}
	for _, p := range podsOf(t, admin, "web") {
		if p.Spec.Containers[0].Image != "nginx:1.26" {
			t.Errorf("pod %s runs %s after the undo", p.Name, p.Spec.Containers[0].Image)
		}
	}
}

// undo does what kubectl rollout undo does: a JSON patch of the
// Deployment's template with the ReplicaSet's, without the hash label.
func undo(t *testing.T, admin kubernetes.Interface, name string, template corev1.PodTemplateSpec) {
	t.Helper()
	delete(template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	patch, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template", "value": template}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.AppsV1().Deployments("default").Patch(context.Background(), name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("undo: %v", err)
	}
}

// TestRecreate: with the Recreate strategy no pod of the new template
// is created while a pod of the old one is left that has not finished
// (upstream's oldPodsRunning: a pod Succeeded or Failed, as the kubelet
// leaves a pod it has stopped before it is removed, no longer counts),
// as seen on a watch.
func TestRecreate(t *testing.T) {
	_, admin := startCluster(t)
	d := newDeployment("web", 3)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	mustCreateDeployment(t, admin, d)
	waitRolledOut(t, admin, "web")
	list, err := admin.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	for _, p := range list.Items {
		old[p.Name] = true
	}
	w, err := admin.CoreV1().Pods("default").Watch(context.Background(), metav1.ListOptions{LabelSelector: "app=web", ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var overlaps []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			mu.Lock()
			switch {
			case !ok:
			case ev.Type == watch.Deleted || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
				delete(old, p.Name)
			case ev.Type == watch.Added && len(old) > 0:
				overlaps = append(overlaps, p.Name)
			}
			mu.Unlock()
		}
	}()
	setImage(t, admin, "web", "nginx:1.27")
	waitRolledOut(t, admin, "web")
	w.Stop()
	<-done
	if len(overlaps) > 0 {
		t.Errorf("new pods %v created while old pods were left", overlaps)
	}
	if n := len(podsOf(t, admin, "web")); n != 3 {
		t.Errorf("%d pods after the rollout, want 3", n)
	}
}
