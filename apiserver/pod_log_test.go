package apiserver_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/apiserver"
)

// fakeKubelet is node-a's kubelet: it answers /containerLogs as the
// test says and remembers what it was asked.
type fakeKubelet struct {
	srv     *httptest.Server
	release chan struct{} // closed: a followed log writes its second line
	mu      sync.Mutex
	asked   []string
}

func startFakeKubelet(t *testing.T) *fakeKubelet {
	k := &fakeKubelet{release: make(chan struct{})}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.asked = append(k.asked, r.URL.RequestURI())
		k.mu.Unlock()
		q := r.URL.Query()
		switch {
		case q.Get("previous") == "true":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `previous terminated container "c" in pod "web" not found`)
		case q.Get("follow") == "true":
			_, _ = io.WriteString(w, "line 1\n")
			w.(http.Flusher).Flush()
			select {
			case <-k.release:
			case <-r.Context().Done():
			}
			_, _ = io.WriteString(w, "line 2\n")
		default:
			_, _ = io.WriteString(w, "hello from "+r.URL.Path+"\n")
		}
	}))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *fakeKubelet) lastAsked() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.asked) == 0 {
		return ""
	}
	return k.asked[len(k.asked)-1]
}

// startServerWithKubelet starts a server whose kubelet client trusts k's
// certificate and dials every node address at k, and creates node-a
// (Hostname node-a, kubelet port k's) and pod web bound to it.
func startServerWithKubelet(t *testing.T, k *fakeKubelet) *testServer {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(k.srv.Certificate())
	addr := k.srv.Listener.Addr().String()
	ts := startServer(t, func(c *apiserver.Config) {
		c.Kubelet = apiserver.KubeletClientConfig{
			TLS: &tls.Config{RootCAs: pool, ServerName: "example.com"},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			},
			DialNote: "test: every node is the fake kubelet",
		}
	})
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	created, err := ts.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.168.0.11"}, {Type: corev1.NodeHostName, Address: "node-a"}}
	created.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
	if _, err := ts.client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	web := testPod("web", nil)
	web.Spec.NodeName = "node-a"
	mustCreatePod(t, ts.client, "default", web)
	return ts
}

// logsOf reads a log as kubectl logs does (Stream: an error answer is
// decoded as a Status).
func logsOf(ctx context.Context, ts *testServer, name string, opts *corev1.PodLogOptions) (string, error) {
	stream, err := ts.client.CoreV1().Pods("default").GetLogs(name, opts).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	data, err := io.ReadAll(stream)
	return string(data), err
}

func TestPodLogProxiesToKubelet(t *testing.T) {
	k := startFakeKubelet(t)
	ts := startServerWithKubelet(t, k)
	ctx := context.Background()
	tail := int64(2)
	body, err := logsOf(ctx, ts, "web", &corev1.PodLogOptions{TailLines: &tail, Timestamps: true})
	if err != nil || body != "hello from /containerLogs/default/web/c\n" {
		t.Fatalf("logs: %q, %v", body, err)
	}
	if got, want := k.lastAsked(), "/containerLogs/default/web/c?tailLines=2&timestamps=true"; got != want {
		t.Errorf("kubelet asked %q, want %q", got, want)
	}
	_, err = logsOf(ctx, ts, "web", &corev1.PodLogOptions{Previous: true})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `previous terminated container "c" in pod "web" not found`) {
		t.Errorf("previous: %v, want the kubelet's 400 as a BadRequest", err)
	}
	for _, tc := range []struct {
		pod, container, want string
	}{
		{"web", "db", "container db is not valid for pod web"},
		{"two", "", "a container name must be specified for pod two, choose one of: [a b]"},
	} {
		if tc.pod == "two" {
			two := testPod("two", nil)
			two.Spec.Containers = []corev1.Container{{Name: "a", Image: "nginx"}, {Name: "b", Image: "nginx"}}
			mustCreatePod(t, ts.client, "default", two)
		}
		_, err := logsOf(ctx, ts, tc.pod, &corev1.PodLogOptions{Container: tc.container})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("logs %s/%q: %v, want BadRequest %q", tc.pod, tc.container, err, tc.want)
		}
	}
	code, _ := ts.do(t, http.MethodGet, "/api/v1/namespaces/default/pods/two/log?container=a", "", "")
	if code != http.StatusNoContent {
		t.Errorf("log of an unscheduled pod: %d, want 204", code)
	}
	code, out := ts.do(t, http.MethodGet, "/api/v1/namespaces/default/pods/web/log?tailLines=-1", "", "")
	if code != http.StatusUnprocessableEntity || !strings.Contains(out, "must be greater than or equal to 0") {
		t.Errorf("tailLines=-1: %d %s, want 422", code, out)
	}
}

func TestPodLogFollowStreams(t *testing.T) {
	k := startFakeKubelet(t)
	ts := startServerWithKubelet(t, k)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	stream, err := ts.client.CoreV1().Pods("default").GetLogs("web", &corev1.PodLogOptions{Follow: true}).Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	r := bufio.NewReader(stream)
	if line, err := r.ReadString('\n'); line != "line 1\n" {
		t.Fatalf("first line %q, %v (before the kubelet writes its second)", line, err)
	}
	close(k.release)
	if line, err := r.ReadString('\n'); line != "line 2\n" {
		t.Fatalf("second line %q, %v", line, err)
	}
	if _, err := r.ReadString('\n'); !errors.Is(err, io.EOF) {
		t.Errorf("after the kubelet's end: %v, want EOF", err)
	}
}

func TestPodExecSaysNoProcesses(t *testing.T) {
	k := startFakeKubelet(t)
	ts := startServerWithKubelet(t, k)
	for _, tc := range []struct {
		method, path, token string
		code                int
		want                string
	}{
		{http.MethodPost, "/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true", adminToken, 400, `kubesim runs no real processes: pod web is simulated by the fake runtime of node-a, so container c has no process to run \"ls\" in`},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web/attach?stdout=true", adminToken, 400, "no process to attach to"},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web/portforward?ports=80", adminToken, 400, "no process listens on port 80 to forward to"},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web/exec?command=ls&container=db", adminToken, 400, "container db is not valid for pod web"},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web/exec?command=ls", studentToken, 403, `User \"student\" cannot create resource \"pods/exec\"`},
		{http.MethodGet, "/api/v1/namespaces/default/pods/nope/exec?command=ls", adminToken, 404, `pods \"nope\" not found`},
	} {
		code, body := ts.do(t, tc.method, tc.path, "", "", "Authorization", "Bearer "+tc.token)
		if code != tc.code || !strings.Contains(body, tc.want) || !strings.Contains(body, `"kind":"Status"`) {
			t.Errorf("%s %s: %d %s\nwant %d Status with %s", tc.method, tc.path, code, body, tc.code, tc.want)
		}
	}
	if k.lastAsked() != "" {
		t.Errorf("the kubelet was asked %q; exec must not reach it", k.lastAsked())
	}
}

func TestPodStreamingDiscovery(t *testing.T) {
	ts := startServer(t)
	list, err := ts.client.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range list.APIResources {
		if strings.HasPrefix(r.Name, "pods/") {
			got[r.Name] = r.Kind + " " + strings.Join(r.Verbs, ",")
		}
	}
	for name, want := range map[string]string{
		"pods/log": "Pod get", "pods/exec": "PodExecOptions create,get",
		"pods/attach": "PodAttachOptions create,get", "pods/portforward": "PodPortForwardOptions create,get",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	_ = kubernetes.Interface(ts.client)
}
