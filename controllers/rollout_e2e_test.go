package controllers_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// rolloutWatch checks, on every Deployment and ReplicaSet event a watch
// delivers, the invariants upstream's own rollout tests check: the
// ReplicaSets' replicas add up to at most replicas + maxSurge, and the
// Deployment's availableReplicas stay at least replicas - maxUnavailable.
type rolloutWatch struct {
	mu         sync.Mutex
	specs      map[types.UID]int32
	violations []string
	events     int
	wg         sync.WaitGroup
	cancel     context.CancelFunc
}

// watchRollout starts both watches at the current state of the app's
// objects, for a Deployment of replicas with maxSurge 1, maxUnavailable 1.
func watchRollout(t *testing.T, admin kubernetes.Interface, app string, replicas int32) *rolloutWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &rolloutWatch{specs: map[types.UID]int32{}, cancel: cancel}
	rsList, err := admin.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range rsList.Items {
		w.specs[rs.UID] = *rs.Spec.Replicas
	}
	rsW, err := admin.AppsV1().ReplicaSets("default").Watch(ctx, metav1.ListOptions{LabelSelector: "app=" + app, ResourceVersion: rsList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	dList, err := admin.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + app})
	if err != nil {
		t.Fatal(err)
	}
	dW, err := admin.AppsV1().Deployments("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + app, ResourceVersion: dList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	w.wg.Add(2)
	go w.follow(rsW, func(obj any) {
		rs := obj.(*appsv1.ReplicaSet)
		w.specs[rs.UID] = *rs.Spec.Replicas
		var sum int32
		for _, n := range w.specs {
			sum += n
		}
		if sum > replicas+1 {
			w.violations = append(w.violations, fmt.Sprintf("replicasets' replicas add up to %d > %d (rv %s)", sum, replicas+1, rs.ResourceVersion))
		}
	})
	go w.follow(dW, func(obj any) {
		d := obj.(*appsv1.Deployment)
		if d.Status.ObservedGeneration > 0 && d.Status.AvailableReplicas < replicas-1 {
			w.violations = append(w.violations, fmt.Sprintf("deployment available %d < %d (rv %s)", d.Status.AvailableReplicas, replicas-1, d.ResourceVersion))
		}
	})
	t.Cleanup(w.stop)
	return w
}

func (w *rolloutWatch) follow(wi watch.Interface, check func(any)) {
	defer w.wg.Done()
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		if ev.Type != watch.Added && ev.Type != watch.Modified {
			continue
		}
		w.mu.Lock()
		w.events++
		check(ev.Object)
		w.mu.Unlock()
	}
}

func (w *rolloutWatch) stop() {
	w.cancel()
	w.wg.Wait()
}

// result stops the watches and returns what they saw.
func (w *rolloutWatch) result() (violations []string, events int) {
	w.stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.violations, w.events
}

// setImage changes the Deployment's image as kubectl set image does.
func setImage(t *testing.T, admin kubernetes.Interface, name, image string) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":%q}]}}}}`, image)
	if _, err := admin.AppsV1().Deployments("default").Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("set image: %v", err)
	}
}

// TestRollingUpdate: a new image makes a second ReplicaSet at revision
// 2 that takes every replica while the first goes to 0; on every event
// of the rollout the ReplicaSets' replicas stay within maxSurge and the
// Deployment's available pods within maxUnavailable.
func TestRollingUpdate(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 4))
	waitRolledOut(t, admin, "web")
	first := replicaSetsOf(t, admin, "web")[0]
	w := watchRollout(t, admin, "web", 4)
	setImage(t, admin, "web", "nginx:1.27")
	d := waitRolledOut(t, admin, "web")
	violations, events := w.result()
	for _, v := range violations {
		t.Error(v)
	}
	if events < 4 {
		t.Errorf("the watches saw %d events, want the rollout's steps", events)
	}
	rss := replicaSetsOf(t, admin, "web")
	if len(rss) != 2 {
		t.Fatalf("%d replicasets, want 2", len(rss))
	}
	for _, rs := range rss {
		wantReplicas, wantRev := int32(4), "2"
		if rs.UID == first.UID {
			wantReplicas, wantRev = 0, "1"
		}
		if *rs.Spec.Replicas != wantReplicas || rs.Annotations["deployment.kubernetes.io/revision"] != wantRev {
			t.Errorf("replicaset %s: replicas %d revision %s, want %d and %s", rs.Name, *rs.Spec.Replicas, rs.Annotations["deployment.kubernetes.io/revision"], wantReplicas, wantRev)
		}
	}
	if d.Annotations["deployment.kubernetes.io/revision"] != "2" {
		t.Errorf("deployment revision %q, want 2", d.Annotations["deployment.kubernetes.io/revision"])
	}
	for _, p := range podsOf(t, admin, "web") {
		if p.Spec.Containers[0].Image != "nginx:1.27" {
			t.Errorf("pod %s runs %s after the rollout", p.Name, p.Spec.Containers[0].Image)
		}
	}
}
