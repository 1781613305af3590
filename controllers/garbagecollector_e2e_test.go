package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// deleteDeployment deletes web with policy, as kubectl delete
// --cascade=background|foreground|orphan does.
func deleteDeployment(t *testing.T, admin kubernetes.Interface, policy metav1.DeletionPropagation) {
	t.Helper()
	if err := admin.AppsV1().Deployments("default").Delete(context.Background(), "web", metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("delete %s: %v", policy, err)
	}
}

// waitGone waits until web, its ReplicaSets and its pods are all gone.
func waitGone(t *testing.T, admin kubernetes.Interface) {
	t.Helper()
	waitFor(t, "deployment, replicasets and pods gone", func(ctx context.Context) (bool, error) {
		_, err := admin.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, nil
		}
		rss, err := admin.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(rss.Items) > 0 {
			return false, err
		}
		pods, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(pods.Items) == 0, err
	})
}

// TestDeleteBackground: the Deployment goes at once; the garbage
// collector then deletes its ReplicaSet, and then the pods.
func TestDeleteBackground(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	deleteDeployment(t, admin, metav1.DeletePropagationBackground)
	if _, err := admin.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after a background delete: err %v, want NotFound at once", err)
	}
	waitGone(t, admin)
}

// TestDeleteForeground: the Deployment stays, with deletionTimestamp and
// the foregroundDeletion finalizer, until its ReplicaSet and pods are
// gone: on a watch of both, the Deployment's DELETED event comes after
// every pod's.
func TestDeleteForeground(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	pods := podsOf(t, admin, "web")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var order []string
	follow := func(w watch.Interface, what func(watch.Event) string) {
		for ev := range w.ResultChan() {
			if ev.Type == watch.Deleted {
				mu.Lock()
				order = append(order, what(ev))
				mu.Unlock()
			}
		}
	}
	pw, err := admin.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	dw, err := admin.AppsV1().Deployments("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web"})
	if err != nil {
		t.Fatal(err)
	}
	go follow(pw, func(ev watch.Event) string { return "pod " + ev.Object.(*corev1.Pod).Name })
	go follow(dw, func(watch.Event) string { return "deployment" })
	deleteDeployment(t, admin, metav1.DeletePropagationForeground)
	d, err := admin.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get right after a foreground delete: %v, want the deployment still there", err)
	}
	if d.DeletionTimestamp == nil || !slices.Contains(d.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Errorf("deployment deletionTimestamp %v finalizers %v, want set and %s", d.DeletionTimestamp, d.Finalizers, metav1.FinalizerDeleteDependents)
	}
	waitGone(t, admin)
	waitFor(t, "the watches to deliver every deletion", func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(order) == len(pods)+1, nil
	})
	mu.Lock()
	defer mu.Unlock()
	if order[len(order)-1] != "deployment" {
		t.Errorf("deletions in the order %v, want the deployment last", order)
	}
}

// TestDeleteOrphan: the Deployment goes once the garbage collector has
// removed its ownerReference from the ReplicaSet, which stays with its
// pods.
func TestDeleteOrphan(t *testing.T) {
	_, admin := startCluster(t)
	mustCreateDeployment(t, admin, newDeployment("web", 3))
	waitRolledOut(t, admin, "web")
	deleteDeployment(t, admin, metav1.DeletePropagationOrphan)
	waitFor(t, "the deployment gone", func(ctx context.Context) (bool, error) {
		_, err := admin.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	rss := replicaSetsOf(t, admin, "web")
	if len(rss) != 1 || len(rss[0].OwnerReferences) != 0 {
		t.Fatalf("replicasets %d (owners %v), want one orphan", len(rss), rss)
	}
	if n := len(podsOf(t, admin, "web")); n != 3 {
		t.Errorf("%d pods after an orphan delete, want 3", n)
	}
}

// TestDeleteForegroundCycle: three pods owning one another in a circle,
// every reference blocking; a foreground delete of one removes all three
// (upstream's conformance test "should not be blocked by dependency
// circle"): the collector finds an owner and a dependent both waiting
// for their dependents and makes the references non-blocking, as
// upstream's does.
func TestDeleteForegroundCycle(t *testing.T) {
	_, admin := startCluster(t)
	ctx := context.Background()
	pods := admin.CoreV1().Pods("default")
	var created []*corev1.Pod
	for _, name := range []string{"pod1", "pod2", "pod3"} {
		p, err := pods.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "cycle"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, p)
	}
	// pod1 is owned by pod3, pod2 by pod1, pod3 by pod2.
	for i, p := range created {
		owner := created[(i+2)%3]
		patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]}}`, owner.Name, owner.UID)
		if _, err := pods.Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fg := metav1.DeletePropagationForeground
	if err := pods.Delete(ctx, "pod1", metav1.DeleteOptions{PropagationPolicy: &fg, Preconditions: metav1.NewUIDPreconditions(string(created[0].UID))}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the three pods gone", func(ctx context.Context) (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=cycle"})
		return err == nil && len(list.Items) == 0, err
	})
}
