package kubelet

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// logKubelet is a kubelet of node-1 that knows the harness's pod with its
// last status, and serves its logs from the harness's runtime and clock.
func logKubelet(t *testing.T, h *harness) *Kubelet {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := idx.Add(h.podWithStatus()); err != nil {
		t.Fatal(err)
	}
	return &Kubelet{cfg: Config{Node: DefaultNodeSpec("node-1")}, clock: h.clk, rt: h.rt, pods: idx}
}

func getLog(t *testing.T, k *Kubelet, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	k.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func TestServeContainerLogs(t *testing.T) {
	h := newHarness(t, nil, testPod("web", annotate(AnnotationLog, "+1m late")), 1, time.Time{})
	h.run(10 * time.Second)
	k := logKubelet(t, h)
	started := h.last().ContainerStatuses[0].State.Running.StartedAt.Time
	stamp := started.UTC().Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name, path string
		code       int
		check      func(body string) bool
		want       string
	}{
		{"all", "/containerLogs/default/web/nginx", 200,
			func(b string) bool {
				return strings.Count(b, "\n") == 6 && strings.Contains(b, "worker processes started\n") && !strings.Contains(b, "\nlate\n")
			},
			"6 lines, the start lines, not the line due at 1m"},
		{"tail and timestamps", "/containerLogs/default/web/nginx?tailLines=2&timestamps=true", 200,
			func(b string) bool {
				return strings.Count(b, "\n") == 2 && strings.HasPrefix(b, stamp[:19]) && strings.HasSuffix(b, "worker processes started\n")
			},
			"the last 2 lines, each after its RFC 3339 time"},
		{"old tail parameter", "/containerLogs/default/web/nginx?tail=1", 200,
			func(b string) bool {
				return strings.HasSuffix(b, "worker processes started\n") && strings.Count(b, "\n") == 1
			}, "1 line"},
		{"limit bytes", "/containerLogs/default/web/nginx?limitBytes=10", 200,
			func(b string) bool { return b == "kubesim: c" }, "the first 10 bytes"},
		{"no previous", "/containerLogs/default/web/nginx?previous=true", 400,
			func(b string) bool { return b == `previous terminated container "nginx" in pod "web" not found` }, "upstream's message"},
		{"unknown container", "/containerLogs/default/web/db", 404,
			func(b string) bool { return b == `container "db" not found in pod "web"` }, "upstream's message"},
		{"unknown pod", "/containerLogs/default/nope/nginx", 404,
			func(b string) bool { return b == `pod "nope" does not exist` }, "upstream's message"},
		{"bad query", "/containerLogs/default/web/nginx?tailLines=x", 400,
			func(b string) bool { return b == `{"message": "Unable to decode query."}` }, "upstream's message"},
		{"invalid", "/containerLogs/default/web/nginx?limitBytes=0", 422,
			func(b string) bool { return b == `{"message": "Invalid request."}` }, "upstream's message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := getLog(t, k, tc.path)
			if code != tc.code || !tc.check(body) {
				t.Errorf("GET %s: %d %q; want %d with %s", tc.path, code, body, tc.code, tc.want)
			}
		})
	}
}

func TestServeContainerLogsWaiting(t *testing.T) {
	h := newHarness(t, nil, testPod("web", withImage("nginx:does-not-exist", corev1.PullIfNotPresent)), 1, time.Time{})
	h.run(time.Second)
	code, body := getLog(t, logKubelet(t, h), "/containerLogs/default/web/nginx")
	if want := `container "nginx" in pod "web" is waiting to start: trying and failing to pull image`; code != 400 || body != want {
		t.Errorf("got %d %q, want 400 %q", code, body, want)
	}
}

// TestFollowContainerLog follows a log while the fake clock moves: each
// "every" line arrives as its time comes, and the stream ends when the
// container exits, after its exit line.
func TestFollowContainerLog(t *testing.T) {
	h := newHarness(t, nil, testPod("ticker", annotate(AnnotationLog, "every 1s tick {n}")), 1, time.Time{})
	h.run(3 * time.Second)
	k := logKubelet(t, h)
	srv := httptest.NewServer(k.handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/containerLogs/default/ticker/nginx?follow=true&tailLines=0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	id := strings.TrimPrefix(h.last().ContainerStatuses[0].ContainerID, runtimeScheme)
	l := h.rt.logs.get(id)
	next := func() string {
		deadline := time.After(waitfor.Bound)
		for {
			select {
			case s, ok := <-lines:
				if !ok {
					return "<end>"
				}
				return s
			case <-deadline:
				t.Fatalf("no line within %v", waitfor.Bound)
			case <-time.After(time.Millisecond):
				if h.clk.HasWaiters() {
					h.clk.Step(time.Second)
				}
			}
		}
	}
	first := next()
	if !strings.HasPrefix(first, "tick ") {
		t.Fatalf("first line %q, want a tick", first)
	}
	if second := next(); second == first || !strings.HasPrefix(second, "tick ") {
		t.Fatalf("second line %q after %q, want the next tick", second, first)
	}
	l.exit(h.clk.Now(), "bye")
	for s := next(); s != "<end>"; s = next() {
		if s == "bye" {
			if end := next(); end != "<end>" {
				t.Errorf("after the exit line got %q, want the end of the stream", end)
			}
			return
		}
	}
	t.Error("stream ended without the exit line")
}

func TestKubeletServerAuthentication(t *testing.T) {
	s := &kubeletServer{cfg: ServingConfig{AllowedUsers: []string{"kube-apiserver-kubelet-client"}}}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "served") })
	as := func(cn string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/containerLogs/default/web/nginx", nil)
		if cn != "" {
			r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{{Subject: pkix.Name{CommonName: cn}}}}}
		}
		return r
	}
	for _, tc := range []struct {
		cn   string
		code int
		body string
	}{
		{"", 401, "Unauthorized"},
		{"student", 403, "Forbidden (user=student, verb=get, resource=nodes, subresource(s)=[proxy])\n"},
		{"kube-apiserver-kubelet-client", 200, "served"},
	} {
		rec := httptest.NewRecorder()
		s.authenticated(ok).ServeHTTP(rec, as(tc.cn))
		if rec.Code != tc.code || rec.Body.String() != tc.body {
			t.Errorf("as %q: %d %q, want %d %q", tc.cn, rec.Code, rec.Body.String(), tc.code, tc.body)
		}
	}
}
