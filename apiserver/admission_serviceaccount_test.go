package apiserver_test

import (
	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
)

// withServiceAccountAdmission runs the server with every admission
// plugin, as kube-apiserver does by default.
func withServiceAccountAdmission(cfg *apiserver.Config) { cfg.DisableAdmissionPlugins = nil }

func nginxPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}
}

// TestServiceAccountAdmissionOverHTTP: without a default ServiceAccount
// (no controller manager makes it here) a pod is rejected with upstream's
// message; with it, the pod runs as it and mounts the projected token.
func TestServiceAccountAdmissionOverHTTP(t *testing.T) {
	ts := startServer(t, withServiceAccountAdmission)
	ctx := context.Background()
	pods := ts.client.CoreV1().Pods("default")
	_, err := pods.Create(ctx, nginxPod("early"), metav1.CreateOptions{})
	const want = `pods "early" is forbidden: error looking up service account default/default: serviceaccount "default" not found`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("create without the default account: %v, want 403 %q", err, want)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod, err := pods.Create(ctx, nginxPod("web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create with the default account: %v", err)
	}
	if pod.Spec.ServiceAccountName != "default" {
		t.Errorf("serviceAccountName = %q, want default", pod.Spec.ServiceAccountName)
	}
	if len(pod.Spec.Volumes) != 1 || !strings.HasPrefix(pod.Spec.Volumes[0].Name, "kube-api-access-") || pod.Spec.Volumes[0].Projected == nil {
		t.Fatalf("volumes = %+v, want the projected kube-api-access-* volume", pod.Spec.Volumes)
	}
	mounts := pod.Spec.Containers[0].VolumeMounts
	if len(mounts) != 1 || mounts[0].Name != pod.Spec.Volumes[0].Name || !mounts[0].ReadOnly ||
		mounts[0].MountPath != "/var/run/secrets/kubernetes.io/serviceaccount" {
		t.Errorf("mounts = %+v", mounts)
	}

	// A pod's update keeps what admission gave it (only creates mutate).
	pod.Labels = map[string]string{"a": "b"}
	updated, err := pods.Update(ctx, pod, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.Spec.Volumes[0].Name != pod.Spec.Volumes[0].Name {
		t.Errorf("volume renamed on update: %q → %q", pod.Spec.Volumes[0].Name, updated.Spec.Volumes[0].Name)
	}
}

// TestServiceAccountAdmissionAutomountOff: an account with
// automountServiceAccountToken false gives its pods no token volume.
func TestServiceAccountAdmissionAutomountOff(t *testing.T) {
	ts := startServer(t, withServiceAccountAdmission)
	ctx := context.Background()
	no := false
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "quiet"}, AutomountServiceAccountToken: &no}
	if _, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := nginxPod("q")
	p.Spec.ServiceAccountName = "quiet"
	pod, err := ts.client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Volumes) != 0 || len(pod.Spec.Containers[0].VolumeMounts) != 0 {
		t.Errorf("volumes %+v, mounts %+v; want none", pod.Spec.Volumes, pod.Spec.Containers[0].VolumeMounts)
	}
}

func TestDisableAdmissionPluginsIsChecked(t *testing.T) {
	cfg := apiserver.NewConfig(&clientv3.Client{})
	cfg.Authenticator = auth.NewTokenAuthenticator(testTokens)
	cfg.DisableAdmissionPlugins = []string{"ServiceAcount"}
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), `"ServiceAcount" is not one of NamespaceLifecycle, LimitRanger, ServiceAccount, NodeRestriction, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, ResourceQuota`) {
		t.Errorf("Validate = %v", err)
	}
}
