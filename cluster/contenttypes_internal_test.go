package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/pki"
)

// headerRecorder is a server that answers 404 to everything and keeps
// the Accept and Content-Type headers of the last request.
type headerRecorder struct {
	mu                  sync.Mutex
	accept, contentType string
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.accept, h.contentType = r.Header.Get("Accept"), r.Header.Get("Content-Type")
	h.mu.Unlock()
	http.NotFound(w, r)
}

func (h *headerRecorder) last() (accept, contentType string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.accept, h.contentType
}

// TestComponentContentTypes: each component's client speaks to the API
// server as upstream's binary does by default: kube-scheduler,
// kube-controller-manager and metrics-server send protobuf with
// "Accept: application/vnd.kubernetes.protobuf, */*" (ContentType only);
// the kubelet, real or hollow, accepts protobuf then JSON; the admin's
// client is client-go's (its generated clients still prefer protobuf).
func TestComponentContentTypes(t *testing.T) {
	rec := &headerRecorder{}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	const protobuf = "application/vnd.kubernetes.protobuf"
	hollow := &hollowNodes{config: &rest.Config{Host: ts.URL}, transport: http.DefaultTransport}
	tests := []struct {
		name       string
		client     func() (kubernetes.Interface, error)
		wantAccept string
	}{
		{"scheduler", clientAs(ts.URL, pki.Scheduler()), protobuf + ", */*"},
		{"controller manager", clientAs(ts.URL, pki.ControllerManager()), protobuf + ", */*"},
		{"metrics server", clientAs(ts.URL, metricsIdentity), protobuf + ", */*"},
		{"kubelet", clientAs(ts.URL, pki.Node("node-1")), protobuf + ",application/json"},
		{"hollow kubelet", func() (kubernetes.Interface, error) { return hollow.clientFor("node-2") }, protobuf + ",application/json"},
		{"admin", clientAs(ts.URL, pki.Admin()), protobuf + ",application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := tt.client()
			if err != nil {
				t.Fatal(err)
			}
			// A raw request shows the configuration itself: a generated
			// client's own preference for protobuf does not apply to it.
			_ = client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes").Do(context.Background()).Error()
			accept, _ := rec.last()
			if tt.name == "admin" {
				if accept != "application/json, */*" {
					t.Errorf("admin's raw request: Accept = %q, want client-go's default %q", accept, "application/json, */*")
				}
			} else if accept != tt.wantAccept {
				t.Errorf("raw request: Accept = %q, want %q", accept, tt.wantAccept)
			}
			_, _ = client.CoreV1().Pods("default").Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{})
			if accept, ct := rec.last(); accept != tt.wantAccept || ct != protobuf {
				t.Errorf("pod create: Accept = %q, Content-Type = %q; want %q, %q", accept, ct, tt.wantAccept, protobuf)
			}
		})
	}
}

// clientAs is a clientset for host configured as restConfigFor
// configures id's (without its certificate).
func clientAs(host string, id pki.Identity) func() (kubernetes.Interface, error) {
	return func() (kubernetes.Interface, error) {
		cfg := &rest.Config{Host: host, UserAgent: componentAgent(id)}
		setComponentContentTypes(cfg, id)
		return kubernetes.NewForConfig(cfg)
	}
}
