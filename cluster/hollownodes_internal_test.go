package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/kubelet"
)

// TestHollowKubeletsInACluster: with one real kubelet allowed, node-2
// and node-3 are hollow; every node registers Ready with a Lease, the
// hollow ones advertising one shared kubelet port (node-1 its own); a
// pod bound to node-3 and one bound to node-2 run there and their logs
// are served through the shared port, each by its node's kubelet (the
// lazily made serving certificates), and the audit log shows node-3's
// requests made by the admin impersonating system:node:node-3. Not
// parallel: it lowers the package's limit for its own cluster.
func TestHollowKubeletsInACluster(t *testing.T) {
	defer func(n int) { realKubeletLimit = n }(realKubeletLimit)
	realKubeletLimit = 1
	cfg := NewConfig()
	cfg.Port, cfg.DataDir, cfg.UnsafeNoFsync, cfg.Speed = 0, t.TempDir(), true, 0
	cfg.Nodes = kubelet.DefaultNodes(3)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		pollUntil(ctx, t, n+" Ready with a Lease", func() bool {
			node, err := admin.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			if err != nil || !isReady(node) {
				return false
			}
			_, err = admin.CoordinationV1().Leases(kubelet.NodeLeaseNamespace).Get(ctx, n, metav1.GetOptions{})
			return err == nil
		})
	}
	if ports := kubeletPorts(ctx, t, admin); ports["node-2"] != ports["node-3"] || ports["node-1"] == ports["node-2"] {
		t.Errorf("kubelet ports %v: want node-2 and node-3 (hollow) on one shared port, node-1 on its own", ports)
	}
	for name, node := range map[string]string{"web": "node-3", "db": "node-2"} {
		container := map[string]string{"web": "nginx", "db": "redis"}[name]
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: container, Image: container}}}}
		if _, err := admin.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pollUntil(ctx, t, "db's log, from node-2 through the shared port", func() bool {
		data, err := admin.CoreV1().Pods("default").GetLogs("db", &corev1.PodLogOptions{}).DoRaw(ctx)
		return err == nil && strings.Contains(string(data), "kubesim: container redis")
	})
	pollUntil(ctx, t, "web Running on node-3", func() bool {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning && p.Status.HostIP == kubelet.DefaultNodeIP("node-3")
	})
	pollUntil(ctx, t, "web's log", func() bool {
		data, err := admin.CoreV1().Pods("default").GetLogs("web", &corev1.PodLogOptions{}).DoRaw(ctx)
		return err == nil && strings.Contains(string(data), "kubesim: container nginx")
	})
	for what, uri := range map[string]string{"status patch": "/api/v1/namespaces/default/pods/web/status",
		"event (its shared broadcaster)": "/api/v1/namespaces/default/events"} {
		pollUntil(ctx, t, "node-3's "+what+" in the audit log, impersonated", func() bool {
			return auditedAsNode3(t, c.DataDir, uri)
		})
	}
	h, err := c.hollow()
	if err != nil {
		t.Fatal(err)
	}
	hc, err := h.clientFor("node-3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hc.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{}); !errors.Is(err, errHollowGroup) {
		t.Errorf("a hollow kubelet's client listing Deployments: %v, want %v", err, errHollowGroup)
	}
}

// auditedAsNode3 reports whether the audit log has a request to uri by
// the admin impersonating system:node:node-3.
func auditedAsNode3(t *testing.T, dataDir, uri string) bool {
	data, err := os.ReadFile(filepath.Join(dataDir, "logs", "audit.log"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"requestURI":"`+uri+`"`) &&
			strings.Contains(line, `"user":{"username":"admin"`) &&
			strings.Contains(line, `"impersonatedUser":{"username":"system:node:node-3"`) {
			return true
		}
	}
	return false
}

func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// kubeletPorts is each Node's status.daemonEndpoints.kubeletEndpoint.port.
func kubeletPorts(ctx context.Context, t *testing.T, admin kubernetes.Interface) map[string]int32 {
	t.Helper()
	nodes, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]int32{}
	for _, n := range nodes.Items {
		ports[n.Name] = n.Status.DaemonEndpoints.KubeletEndpoint.Port
	}
	return ports
}
