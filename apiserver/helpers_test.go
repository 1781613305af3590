package apiserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/serverchain"
	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// testServer is a running API server on its own etcd.
type testServer struct {
	url    string
	client kubernetes.Interface
	etcd   *clientv3.Client
	srv    *apiserver.Server
}

// startServer starts an API server on a free loopback port and stops it
// when the test ends.
func startServer(tb testing.TB, mutate ...func(*apiserver.Config)) *testServer {
	tb.Helper()
	return startServerWith(tb, etcdtest.Start(tb).Client(), mutate...)
}

// startServerOn starts a second API server on the etcd of other.
func startServerOn(tb testing.TB, other *testServer, mutate ...func(*apiserver.Config)) *testServer {
	tb.Helper()
	return startServerWith(tb, other.etcd, mutate...)
}

func startServerWith(tb testing.TB, etcd *clientv3.Client, mutate ...func(*apiserver.Config)) *testServer {
	tb.Helper()
	cfg := apiserver.NewConfig(etcd)
	cfg.Port = 0
	cfg.Authenticator = auth.NewTokenAuthenticator(testTokens)
	cfg.BookmarkInterval = 200 * time.Millisecond
	// No controller manager makes the default service accounts here: as
	// upstream's integration tests (DefaultTestServerFlags), run without
	// the ServiceAccount admission plugin; withServiceAccountAdmission
	// turns it back on.
	cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName}
	for _, m := range mutate {
		m(cfg)
	}
	srv, err := serverchain.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("server Run: %v", err)
		}
	})
	ts := &testServer{url: srv.URL(), etcd: etcd, srv: srv}
	waitFor(tb, waitTimeout, "server ready", func() bool {
		resp, err := http.Get(ts.url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	waitFor(tb, waitTimeout, "default namespace", func() bool {
		req, _ := http.NewRequest("GET", ts.url+"/api/v1/namespaces/default", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	ts.client = kubernetes.NewForConfigOrDie(ts.restConfig())
	return ts
}

// Tokens of the test identities.
const (
	adminToken     = "admin-token-0123456789abcdef0123456789abcdef"
	studentToken   = "student-token-0123456789abcdef0123456789abcd"
	schedulerToken = "scheduler-token-0123456789abcdef0123456789ab"
	nodeAToken     = "node-a-token-0123456789abcdef0123456789abcde"
	nodeBToken     = "node-b-token-0123456789abcdef0123456789abcde"
)

var testTokens = []auth.TokenEntry{
	{Token: adminToken, User: auth.User{Name: "admin", Groups: []string{auth.GroupMasters}}},
	{Token: studentToken, User: auth.User{Name: "student"}},
	{Token: schedulerToken, User: auth.User{Name: auth.SchedulerUser}},
	{Token: nodeAToken, User: auth.User{Name: auth.NodeUserPrefix + "node-a", Groups: []string{auth.GroupNodes}}},
	{Token: nodeBToken, User: auth.User{Name: auth.NodeUserPrefix + "node-b", Groups: []string{auth.GroupNodes}}},
}

// restConfig is client-go's configuration as admin.
func (ts *testServer) restConfig() *rest.Config {
	return ts.restConfigAs(adminToken)
}

func (ts *testServer) restConfigAs(token string) *rest.Config {
	return &rest.Config{Host: ts.url, QPS: -1, BearerToken: token}
}

// waitTimeout is the deadline of a wait for the server to reach a state:
// generous, so that only a hang reaches it, never a slow machine. A
// passing test does not wait longer for it: each wait returns as soon as
// its condition holds.
const waitTimeout = waitfor.Bound

// waitFor polls cond until it holds or the deadline passes. timeout is
// raised to waitTimeout: a slow machine must not fail a test, and a
// shorter deadline only moves where a failing test gives up.
func waitFor(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	timeout = max(timeout, waitTimeout)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// do sends a request as admin and returns status code and body. Extra
// header pairs are set on the request ("Authorization", "" sends none).
func (ts *testServer) do(tb testing.TB, method, path, contentType, body string, header ...string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

func testPod(name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
	}
}

func mustCreatePod(tb testing.TB, c kubernetes.Interface, ns string, p *corev1.Pod) *corev1.Pod {
	tb.Helper()
	out, err := c.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("create pod %s: %v", p.Name, err)
	}
	return out
}

// stepNames joins the names of a trace's steps with spaces.
func stepNames(steps []flow.Step) string {
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Name
	}
	return strings.Join(names, " ")
}
