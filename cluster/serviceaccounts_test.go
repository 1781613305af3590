package cluster_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
)

func busyboxPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
}

// TestStartWaitsForTheDefaultServiceAccount: Start returns once the
// service-account-controller has made default/default, so the first pod
// is admitted at once; the startup log says so.
func TestStartWaitsForTheDefaultServiceAccount(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, func(cfg *cluster.Config) { cfg.Nodes, cfg.MetricsServer, cfg.Scheduler = nil, false, false })
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts("default").Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("default/default right after Start: %v", err)
	}
	if _, err := admin.CoreV1().Pods("default").Create(context.Background(), busyboxPod("first"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("first pod: %v", err)
	}
	found := false
	for _, s := range c.StartupSteps() {
		found = found || (s.Name == "serviceaccount" && s.Outcome == "ok")
	}
	if !found {
		t.Errorf("no serviceaccount step in %v", c.StartupSteps())
	}
}

// TestAPIOnlyRejectsPodsWithoutAnAccount: without the controller manager
// nothing makes the default ServiceAccount, and the ServiceAccount
// admission plugin rejects a pod, as kube-apiserver alone does; made by
// hand, the account lets the pod in.
func TestAPIOnlyRejectsPodsWithoutAnAccount(t *testing.T) {
	t.Parallel()
	cfg := clustertest.Config(t).APIOnly()
	c := clustertest.StartWith(t, cfg)
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = admin.CoreV1().Pods("default").Create(ctx, busyboxPod("early"), metav1.CreateOptions{})
	const want = `pods "early" is forbidden: error looking up service account default/default: serviceaccount "default" not found`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("create = %v, want %q", err, want)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Pods("default").Create(ctx, busyboxPod("later"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create with the account: %v", err)
	}
}
