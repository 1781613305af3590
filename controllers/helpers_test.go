package controllers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// The tests run the controller manager inside a real cluster (etcd, the
// API server, the scheduler, three kubelets at speed 0), as the cluster
// starts it. They wait for conditions, never for a fixed time, and a slow
// machine does not fail them: waitProgress fails only when the progress
// it watches has not changed for waitfor.Stall; waitTimeout is the one
// deadline of a wait with nothing to watch but its end.
const (
	waitTimeout  = waitfor.Bound
	pollInterval = 20 * time.Millisecond
	// commandTimeout bounds one kubectl run: longer than waitTimeout,
	// which kubectl's own --timeout is given, so that kubectl says what
	// it waited for.
	commandTimeout = waitTimeout + time.Minute
)

// startCluster starts the cluster and returns an admin client.
func startCluster(t *testing.T) (*cluster.Cluster, kubernetes.Interface) {
	t.Helper()
	c := clustertest.Start(t, func(cfg *cluster.Config) { cfg.MetricsServer = false })
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	return c, admin
}

// waitFor polls cond until it is true, failing the test with what at
// once if cond returns an error, or once cond has not held for
// waitTimeout.
func waitFor(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	waitProgress(t, what, func(ctx context.Context) (bool, string, error) {
		ok, err := cond(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		return ok, "not yet", nil
	})
}

// waitProgress polls poll until it is done, failing the test with what
// and the progress poll last reported once that progress has not changed
// for waitfor.Stall. An error from poll is a failed look: it is retried.
func waitProgress(t *testing.T, what string, poll waitfor.Poll) {
	t.Helper()
	waitfor.Progress(t, what, poll, waitfor.PollEvery(pollInterval))
}

// newDeployment is a Deployment of replicas nginx pods labelled app=name,
// rolling update with maxSurge 1 and maxUnavailable 1.
func newDeployment(name string, replicas int32) *appsv1.Deployment {
	one := intstr.FromInt32(1)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &one}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.26"}}},
			},
		},
	}
}

// mustCreateDeployment creates d as admin.
func mustCreateDeployment(t *testing.T, admin kubernetes.Interface, d *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	out, err := admin.AppsV1().Deployments(d.Namespace).Create(context.Background(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment %s: %v", d.Name, err)
	}
	return out
}

// waitRolledOut waits until the Deployment's status says what kubectl
// rollout status waits for: the generation observed, every replica
// updated, none old, all available.
func waitRolledOut(t *testing.T, admin kubernetes.Interface, name string) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	waitProgress(t, "deployment "+name+" rolled out", func(ctx context.Context) (bool, string, error) {
		var err error
		if d, err = admin.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Fatalf("waiting for deployment %s rolled out: %v", name, err)
		}
		s, want := d.Status, *d.Spec.Replicas
		return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.Replicas == want &&
				s.AvailableReplicas == want && s.ReadyReplicas == want,
			fmt.Sprintf("generation %d observed %d; of %d replicas: %d updated, %d in all, %d ready, %d available",
				d.Generation, s.ObservedGeneration, want, s.UpdatedReplicas, s.Replicas, s.ReadyReplicas, s.AvailableReplicas), nil
	})
	return d
}

// podsOf lists the pods labelled app=name that are not being deleted.
func podsOf(t *testing.T, admin kubernetes.Interface, name string) []corev1.Pod {
	t.Helper()
	list, err := admin.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// replicaSetsOf lists the ReplicaSets labelled app=name.
func replicaSetsOf(t *testing.T, admin kubernetes.Interface, name string) []appsv1.ReplicaSet {
	t.Helper()
	list, err := admin.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// condition returns the Deployment's condition of type t, or nil.
func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
