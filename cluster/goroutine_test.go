package cluster_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestTraceSaysWhichGoroutine: the trace's goroutine step describes what
// net/http does for the request's protocol: a goroutine per HTTP/1.1
// connection, a goroutine per HTTP/2 stream.
func TestTraceSaysWhichGoroutine(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	sub := c.Recorder.Subscribe(1 << 12)
	defer sub.Close()
	for _, tt := range []struct {
		proto, path, want string
	}{
		{"HTTP/1.1", "/version?via=h1", "each HTTP/1.1 connection on a goroutine of its own"},
		{"HTTP/2.0", "/version?via=h2", "each stream (one request) on a goroutine of its own"},
	} {
		cfg, err := c.RESTConfigAs("admin")
		if err != nil {
			t.Fatal(err)
		}
		if tt.proto == "HTTP/1.1" {
			cfg.NextProtos = []string{"http/1.1"}
		}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Get(c.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Proto != tt.proto || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: got %s %d", tt.path, resp.Proto, resp.StatusCode)
		}
		step := traceStep(t, sub, tt.path, "goroutine")
		if !strings.Contains(step.Detail, tt.want) {
			t.Errorf("%s over %s: goroutine step %q, want it to say %q", tt.path, tt.proto, step.Detail, tt.want)
		}
	}
}

// traceStep waits for the trace of the request to uri and returns its
// step called name.
func traceStep(t *testing.T, sub *flow.Subscription, uri, name string) flow.Step {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Request == nil || ev.Request.URI != uri {
				continue
			}
			for _, s := range ev.Request.Steps {
				if s.Name == name {
					return s
				}
			}
			t.Fatalf("the trace of %s has no step %s", uri, name)
		case <-deadline:
			t.Fatalf("no trace of %s", uri)
		}
	}
}
