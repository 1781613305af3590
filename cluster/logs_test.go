package cluster_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/kubelet"
)

// readLogs reads a container log through client-go, as kubectl logs does.
func readLogs(ctx context.Context, admin kubernetes.Interface, pod string, opts *corev1.PodLogOptions) (string, error) {
	stream, err := admin.CoreV1().Pods("default").GetLogs(pod, opts).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	data, err := io.ReadAll(stream)
	return string(data), err
}

// TestClientGoGetLogs reads container logs through the whole path: the
// API server's pods/log, over HTTPS with its kubelet client certificate,
// to the node's kubelet at the port its Node advertises, and back; and
// the previous container's log after a crash-loop restart.
func TestClientGoGetLogs(t *testing.T) {
	_, admin := startFullCluster(t, 1, 0)
	ctx, cancel := context.WithTimeout(context.Background(), waitfor.Cap)
	defer cancel()
	node, err := admin.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := node.Status.DaemonEndpoints.KubeletEndpoint.Port; p == kubelet.KubeletPort || p <= 0 {
		t.Errorf("node-1 advertises kubelet port %d, want the port its server listens on", p)
	}
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}}}
	crash := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mysql-0", Annotations: map[string]string{kubelet.AnnotationExitAfter: "1s", kubelet.AnnotationExitCode: "1"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "mysql", Image: "mysql:8.4"}}}}
	for _, p := range []*corev1.Pod{web, crash} {
		if _, err := admin.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var got string
	waitUntil(t, ctx, "the log of web", func() bool {
		got, err = readLogs(ctx, admin, "web", &corev1.PodLogOptions{})
		return err == nil && strings.Contains(got, "[notice] 1#1: worker processes started")
	})
	if !strings.HasPrefix(got, "kubesim: container nginx (image docker.io/library/nginx:1.27) is simulated") {
		t.Errorf("web's log starts %q, want kubesim's note first", got)
	}
	want := "kubesim: container mysql exits with code 1, as kubesim.io/exit-after=1s says"
	waitUntil(t, ctx, "the previous log of mysql-0", func() bool {
		got, err = readLogs(ctx, admin, "mysql-0", &corev1.PodLogOptions{Previous: true})
		return err == nil && strings.HasSuffix(got, want+"\n")
	})
	_, err = readLogs(ctx, admin, "web", &corev1.PodLogOptions{Previous: true})
	if err == nil || !strings.Contains(err.Error(), `previous terminated container "nginx" in pod "web" not found`) {
		t.Errorf("previous log of web: %v, want the kubelet's not found", err)
	}
}

// waitUntil polls cond until it holds, failing the test when ctx ends
// or after waitTimeout.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-deadline:
			t.Fatalf("gave up waiting for %s after %v", what, waitTimeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
