package metricsserver_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/metricsserver"
)

// testServer runs a metrics server on a fake clientset with one Ready
// node, one Running pod on it and one Pending pod, and returns it with
// the authority that signed its certificates.
func testServer(t *testing.T) (*metricsserver.Server, *pki.Authority) {
	t.Helper()
	a, err := pki.Load(pki.NewConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	cert, err := a.IssueServingCert("metrics-server", []string{metricsserver.ServiceName}, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a"}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}},
		Spec:   corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "nginx"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "nginx", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pending"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	cfg := metricsserver.NewConfig(fake.NewClientset(node, web, pending))
	cfg.ServingCert, cfg.RequestHeaderCA = cert, a.CAPool()
	cfg.Now = func() time.Time { return time.Date(2026, 1, 1, 10, 0, 7, 0, time.UTC) }
	s, err := metricsserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return s, a
}

// client returns an HTTPS client verifying the server as
// metrics-server.kube-system.svc and presenting a certificate for cn ("":
// none).
func client(t *testing.T, a *pki.Authority, cn string) *http.Client {
	t.Helper()
	tc := &tls.Config{RootCAs: a.CAPool(), ServerName: metricsserver.ServiceName, MinVersion: tls.VersionTLS12}
	if cn != "" {
		certPEM, keyPEM, err := a.ClientCert(pki.Identity{User: cn})
		if err != nil {
			t.Fatal(err)
		}
		c, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{c}
	}
	tr := &http.Transport{TLSClientConfig: tc}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: waitfor.Bound}
}

func get(t *testing.T, c *http.Client, url, user string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.Header.Set("X-Remote-User", user)
		req.Header.Add("X-Remote-Group", "system:masters")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServer(t *testing.T) {
	s, a := testServer(t)
	proxy := client(t, a, metricsserver.DefaultAllowedName)
	deadline := time.Now().Add(waitfor.Bound)
	for {
		if code, _ := get(t, proxy, s.URL()+"/readyz", ""); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the metrics server never became ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tests := []struct {
		name   string
		c      *http.Client
		path   string
		user   string
		code   int
		within string
	}{
		{"discovery", proxy, "/apis/metrics.k8s.io/v1beta1", "system:kube-aggregator", 200, `"name":"pods","singularName":"pod","namespaced":true,"kind":"PodMetrics","verbs":["get","list"]`},
		{"group", proxy, "/apis/metrics.k8s.io", "admin", 200, `"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}`},
		{"nodes", proxy, "/apis/metrics.k8s.io/v1beta1/nodes", "admin", 200, `"name":"node-1"`},
		{"node by label", proxy, "/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=zone%3Db", "admin", 200, `"items":[]`},
		{"pods", proxy, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "admin", 200, `"containers":[{"name":"nginx"`},
		{"pending pod has none", proxy, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/pending", "admin", 404, `"message":"podmetrics.metrics.k8s.io \"pending\" not found"`},
		{"no such node", proxy, "/apis/metrics.k8s.io/v1beta1/nodes/nosuch", "admin", 404, `nodemetrics.metrics.k8s.io \"nosuch\" not found`},
		{"no X-Remote-User", proxy, "/apis/metrics.k8s.io/v1beta1/nodes", "", 401, `"reason":"Unauthorized"`},
		{"no client certificate", client(t, a, ""), "/apis/metrics.k8s.io/v1beta1/nodes", "admin", 401, `"reason":"Unauthorized"`},
		{"certificate of another name", client(t, a, "admin"), "/apis/metrics.k8s.io/v1beta1/nodes", "admin", 401, `"reason":"Unauthorized"`},
		{"health is open", client(t, a, ""), "/healthz", "", 200, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, tt.c, s.URL()+tt.path, tt.user)
			if code != tt.code || !strings.Contains(body, tt.within) {
				t.Fatalf("GET %s: %d %s, want %d with %s", tt.path, code, body, tt.code, tt.within)
			}
		})
	}
	_, body := get(t, proxy, s.URL()+"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web", "admin")
	var pm metricsv1beta1.PodMetrics
	if err := json.Unmarshal([]byte(body), &pm); err != nil {
		t.Fatal(err)
	}
	cpu := pm.Containers[0].Usage[corev1.ResourceCPU]
	if share := metricsserver.CPUShare("default", "web", "nginx"); cpu.MilliValue() != share {
		t.Errorf("web's cpu = %s, want %dm (%d%% of the default 100m)", cpu.String(), share, share)
	}
	if pm.Window.Duration != 15*time.Second || !pm.Timestamp.Time.Equal(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)) || pm.Labels["app"] != "web" {
		t.Errorf("window %v, timestamp %v, labels %v; want 15s, 10:00:00, the pod's", pm.Window, pm.Timestamp, pm.Labels)
	}
}
