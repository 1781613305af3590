package controllers_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/controllers"
)

// waitServiceAccount waits for the ServiceAccount default in ns and
// returns it.
func waitServiceAccount(t *testing.T, admin kubernetes.Interface, ns string) *corev1.ServiceAccount {
	t.Helper()
	var sa *corev1.ServiceAccount
	waitFor(t, "service account "+ns+"/default", func(ctx context.Context) (bool, error) {
		var err error
		sa, err = admin.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	return sa
}

func createNamespace(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := admin.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultServiceAccountInEveryNamespace: the system namespaces and a
// new one get the account "default"; deleted, it comes back (a new
// object); a pod created right after its namespace is admitted and runs
// as it with the projected token volume.
func TestDefaultServiceAccountInEveryNamespace(t *testing.T) {
	_, admin := startCluster(t)
	ctx := context.Background()
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		waitServiceAccount(t, admin, ns)
	}
	createNamespace(t, admin, "team")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "first"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	created, err := admin.CoreV1().Pods("team").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a pod created right after its namespace: %v", err)
	}
	if created.Spec.ServiceAccountName != "default" || len(created.Spec.Volumes) != 1 ||
		!strings.HasPrefix(created.Spec.Volumes[0].Name, "kube-api-access-") {
		t.Errorf("pod runs as %q with volumes %+v; want default and kube-api-access-*", created.Spec.ServiceAccountName, created.Spec.Volumes)
	}

	first := waitServiceAccount(t, admin, "team")
	if err := admin.CoreV1().ServiceAccounts("team").Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "default account made again", func(ctx context.Context) (bool, error) {
		sa, err := admin.CoreV1().ServiceAccounts("team").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && sa.UID != first.UID, err
	})
}

// TestRootCACertPublished: every namespace gets kube-root-ca.crt with the
// cluster's CA (the one in the admin kubeconfig) and upstream's
// description; a changed or deleted one is put back.
func TestRootCACertPublished(t *testing.T) {
	c, admin := startCluster(t)
	ctx := context.Background()
	ca := c.Authority.CACertPEM()
	createNamespace(t, admin, "team")
	cms := admin.CoreV1().ConfigMaps("team")
	published := func(what string) *corev1.ConfigMap {
		var cm *corev1.ConfigMap
		waitFor(t, what, func(ctx context.Context) (bool, error) {
			var err error
			cm, err = cms.Get(ctx, controllers.RootCACertConfigMapName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil && cm.Data["ca.crt"] == string(ca), err
		})
		return cm
	}
	cm := published("kube-root-ca.crt in team")
	if len(cm.Data) != 1 || !strings.HasPrefix(cm.Annotations["kubernetes.io/description"], "Contains a CA bundle that can be used to verify the kube-apiserver") {
		t.Errorf("data keys %d, annotations %v", len(cm.Data), cm.Annotations)
	}
	cm.Data["ca.crt"] = "tampered"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	published("kube-root-ca.crt restored after an update")
	if err := cms.Delete(ctx, controllers.RootCACertConfigMapName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	published("kube-root-ca.crt made again after a delete")
}
