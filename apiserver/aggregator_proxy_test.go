package apiserver_test

import (
	"crypto/tls"
	"encoding/base64"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregator"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
)

// backend is a stand-in aggregated API server for metrics.k8s.io/v1beta1:
// HTTPS with a certificate for metrics-server.kube-system.svc, client
// certificates required and verified against the cluster's CA, and a
// record of the headers of the last request for each path (the
// availability check's discovery GETs, which run all along, go to the
// group-version's root and do not overwrite the proxied request's).
type backend struct {
	srv *httptest.Server
	mu  sync.Mutex
	hdr map[string]http.Header
}

func startBackend(t *testing.T, a *pki.Authority, addr string) *backend {
	t.Helper()
	cert, err := a.IssueServingCert("metrics-server", []string{"metrics-server.kube-system.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{hdr: map[string]http.Header{}}
	b.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.hdr[r.URL.Path] = r.Header.Clone()
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/apis/metrics.k8s.io/v1beta1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.k8s.io/v1beta1","resources":[{"name":"nodes","singularName":"","namespaced":false,"kind":"NodeMetrics","verbs":["get","list"]}]}`))
		case "/apis/metrics.k8s.io/v1beta1/nodes":
			_, _ = w.Write([]byte(`{"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		b.srv.Listener.Close()
		b.srv.Listener = ln
	}
	b.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	b.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: a.CAPool(), ClientAuth: tls.RequireAndVerifyClientCert}
	b.srv.StartTLS()
	t.Cleanup(b.srv.Close)
	return b
}

// header returns the headers of the last request for path.
func (b *backend) header(path string) http.Header {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hdr[path]
}

// TestAggregatorProxy: a remote APIService becomes Available once its
// backend answers the discovery check; requests for its group-version are
// proxied over TLS (backend verified for <service>.<namespace>.svc, the
// aggregator's client certificate presented) with the user in the
// X-Remote-* headers and the caller's credentials left behind; with the
// backend stopped it becomes False (FailedDiscoveryCheck) and its requests
// get upstream's 503; a backend again makes it True.
func TestAggregatorProxy(t *testing.T) {
	authority, err := pki.Load(pki.NewConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := authority.ClientCert(pki.Identity{User: "front-proxy-client"})
	if err != nil {
		t.Fatal(err)
	}
	proxyCert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	b := startBackend(t, authority, "")
	resolver := aggregator.NewStaticResolver()
	resolver.Set("kube-system", "metrics-server", b.srv.Listener.Addr().String())
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) {
		c.Recorder = rec
		c.Aggregator = apiserver.AggregatorConfig{ProxyClientCert: &proxyCert, Resolver: resolver, ProbePeriod: 50 * time.Millisecond}
	})
	apiService := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1beta1.metrics.k8s.io"},
		"spec":{"group":"metrics.k8s.io","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":100,
		"service":{"namespace":"kube-system","name":"metrics-server"},"caBundle":"` + base64.StdEncoding.EncodeToString(authority.CACertPEM()) + `"}}`
	if code, body := ts.do(t, http.MethodPost, "/apis/apiregistration.k8s.io/v1/apiservices", "application/json", apiService); code != http.StatusCreated {
		t.Fatalf("create APIService: %d %s", code, body)
	}
	if a := ts.getAPIService(t, "v1beta1.metrics.k8s.io"); a.Spec.Service.Port == nil || *a.Spec.Service.Port != 443 {
		t.Errorf("spec.service.port = %v, want the default 443", a.Spec.Service.Port)
	}
	if c := waitForAvailable(t, ts, "v1beta1.metrics.k8s.io", apiregv1.ConditionTrue); c.Reason != "Passed" || c.Message != "all checks passed" {
		t.Errorf("Available = %+v, want reason Passed, all checks passed", c)
	}
	const nodes = "/apis/metrics.k8s.io/v1beta1/nodes"
	waitFor(t, waitTimeout, "the proxy to serve "+nodes, func() bool {
		code, _ := ts.do(t, http.MethodGet, nodes, "", "")
		return code == http.StatusOK
	})
	code, body := ts.do(t, http.MethodGet, nodes, "", "")
	if code != http.StatusOK || !strings.Contains(body, `"kind":"NodeMetricsList"`) {
		t.Fatalf("GET %s: %d %s, want the backend's NodeMetricsList", nodes, code, body)
	}
	h := b.header(nodes)
	if got := h.Get("X-Remote-User"); got != "admin" {
		t.Errorf("X-Remote-User = %q, want admin", got)
	}
	if got := h.Values("X-Remote-Group"); !contains(got, "system:masters") {
		t.Errorf("X-Remote-Group = %v, want system:masters among them", got)
	}
	if got := h.Get("Authorization"); got != "" {
		t.Errorf("the backend got the caller's Authorization %q; the aggregator consumed it", got)
	}
	// The first GETs may have come before the proxy knew the APIService
	// Available: the trace to look at is one that was proxied (200).
	tr := waitForTrace(t, sub, nodes)
	for tr.Code != http.StatusOK {
		tr = waitForTrace(t, sub, nodes)
	}
	if got := chainHops(tr); got != "aggregator:proxied" {
		t.Errorf("hops = %q, want aggregator:proxied", got)
	}

	b.srv.Close()
	c := waitForAvailable(t, ts, "v1beta1.metrics.k8s.io", apiregv1.ConditionFalse)
	if c.Reason != "FailedDiscoveryCheck" || !strings.HasPrefix(c.Message, "failing or missing response from https://"+b.srv.Listener.Addr().String()+"/apis/metrics.k8s.io/v1beta1: ") {
		t.Errorf("Available = %+v, want FailedDiscoveryCheck, failing or missing response from ...", c)
	}
	// Until the proxy's informer has the stored condition, it still
	// proxies, and the failed dial is a 503 too (its error as the body,
	// as upstream's proxy answers); then the APIService is not even tried.
	waitFor(t, waitTimeout, "upstream's 503 \"service unavailable\" from "+nodes, func() bool {
		code, body = ts.do(t, http.MethodGet, nodes, "", "")
		if code != http.StatusServiceUnavailable {
			t.Errorf("GET %s with the backend stopped: %d %s, want 503", nodes, code, body)
		}
		return body == "service unavailable\n"
	})

	b2 := startBackend(t, authority, "")
	resolver.Set("kube-system", "metrics-server", b2.srv.Listener.Addr().String())
	waitForAvailable(t, ts, "v1beta1.metrics.k8s.io", apiregv1.ConditionTrue)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
