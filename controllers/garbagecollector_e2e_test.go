package controllers_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
