package controllers_test

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// TestReplicaSetAdoptsAndReleases: a ReplicaSet of 2 adopts an orphan
// pod whose labels match (and so creates only one), and releases a pod
// relabelled out of its selector (its ownerReference removed), making a
// replacement.
func TestReplicaSetAdoptsAndReleases(t *testing.T) {
	_, admin := startCluster(t)
	ctx := context.Background()
	labels := map[string]string{"app": "db"}
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "default", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "mysql"}}}}
	if _, err := admin.CoreV1().Pods("default").Create(ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// As upstream's e2e adoption test: the orphan Running before the
	// ReplicaSet comes. A ReplicaSet whose informer has not seen the
	// orphan yet creates two pods, adopts the orphan later and deletes one
	// of the three, an unready pod first: the orphan, if it is not Running.
	waitFor(t, "the orphan Running", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "orphan", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, err
	})
	two := int32(2)
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: orphan.Spec}}}
	created, err := admin.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitReplicaSetReady(t, admin, "db", 2)
	pods := podsOf(t, admin, "db")
	if len(pods) != 2 {
		t.Fatalf("%d pods, want 2 (the orphan adopted, one created)", len(pods))
	}
	adopted := getPod(t, admin, "orphan")
	if ref := metav1.GetControllerOf(adopted); ref == nil || ref.UID != created.UID {
		t.Fatalf("orphan's controller %+v, want replicaset db", ref)
	}
	patch := `{"metadata":{"labels":{"app":"other"}}}`
	if _, err := admin.CoreV1().Pods("default").Patch(ctx, "orphan", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the relabelled pod released", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "orphan", metav1.GetOptions{})
		return err == nil && len(p.OwnerReferences) == 0, err
	})
	// The ReplicaSet's status may still say 2 from before the release
	// until the sync that released the pod has made its replacement:
	// wait for the replacement itself.
	waitFor(t, "a replacement for the released pod", func(ctx context.Context) (bool, error) {
		return len(podsOf(t, admin, "db")) == 2, nil
	})
	waitReplicaSetReady(t, admin, "db", 2)
	if n := len(podsOf(t, admin, "db")); n != 2 {
		t.Errorf("%d pods labelled app=db after the release, want 2", n)
	}
}

// waitReplicaSetReady waits until the ReplicaSet reports n replicas,
// all ready, of its current generation.
func waitReplicaSetReady(t *testing.T, admin kubernetes.Interface, name string, n int32) {
	t.Helper()
	waitProgress(t, "replicaset "+name+" ready", func(ctx context.Context) (bool, string, error) {
		rs, err := admin.AppsV1().ReplicaSets("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("waiting for replicaset %s ready: %v", name, err)
		}
		s := rs.Status
		return s.ObservedGeneration >= rs.Generation && s.Replicas == n && s.ReadyReplicas == n && s.AvailableReplicas == n,
			fmt.Sprintf("generation %d observed %d; of %d replicas: %d in all, %d ready, %d available",
				rs.Generation, s.ObservedGeneration, n, s.Replicas, s.ReadyReplicas, s.AvailableReplicas), nil
	})
}

func getPod(t *testing.T, admin kubernetes.Interface, name string) *corev1.Pod {
	t.Helper()
	p, err := admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
