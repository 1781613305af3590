package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestDelegationChain: each server of the chain serves its own paths and
// delegates the rest, and the trace of a request names every hop. An
// unknown group falls through to the not-found handler, whose answer is
// net/http's plain 404, as upstream's notfoundhandler's.
func TestDelegationChain(t *testing.T) {
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	for _, tc := range []struct {
		path     string
		code     int
		hops     string
		bodyPart string
	}{
		{"/apis/apiregistration.k8s.io/v1/apiservices", http.StatusOK, "aggregator:served", `"kind":"APIServiceList"`},
		{"/api/v1/namespaces", http.StatusOK, "aggregator:delegated kube-apiserver:served", `"kind":"NamespaceList"`},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", http.StatusOK,
			"aggregator:delegated kube-apiserver:delegated apiextensions:served", `"kind":"CustomResourceDefinitionList"`},
		{"/apis/nosuch.example.com/v1/things", http.StatusNotFound,
			"aggregator:delegated kube-apiserver:delegated apiextensions:delegated not-found:not found", "404 page not found"},
		{"/api/v1/nosuch", http.StatusNotFound, "aggregator:delegated kube-apiserver:served", `"reason":"NotFound"`},
		// As upstream, each server installs the health endpoints on its own
		// mux, and the first, the aggregator, answers them.
		{"/readyz", http.StatusOK, "aggregator:served", "ok"},
		{"/livez/etcd", http.StatusOK, "aggregator:served", "ok"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, body := ts.do(t, http.MethodGet, tc.path, "", "")
			if code != tc.code || !strings.Contains(body, tc.bodyPart) {
				t.Fatalf("GET %s: %d %s, want %d with %s", tc.path, code, body, tc.code, tc.bodyPart)
			}
			tr := waitForTrace(t, sub, tc.path)
			if got := chainHops(tr); got != tc.hops {
				t.Errorf("hops of GET %s = %q, want %q", tc.path, got, tc.hops)
			}
		})
	}
}

// chainHops lists the delegation chain's hops of a trace as
// server:outcome.
func chainHops(tr *flow.RequestTrace) string {
	var out []string
	for _, st := range tr.Steps {
		if st.Fields["hop"] != "" {
			out = append(out, st.Fields["server"]+":"+st.Fields["hop"])
		}
	}
	return strings.Join(out, " ")
}

// waitForTrace returns the trace of the request for path, from the
// server's recorder.
func waitForTrace(t *testing.T, sub *flow.Subscription, path string) *flow.RequestTrace {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Request != nil && ev.Request.URI == path {
				return ev.Request
			}
		case <-deadline:
			t.Fatalf("no trace of GET %s", path)
		}
	}
}
