package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestReadyzFailsOnceShutdownBegins: as kube-apiserver's, /readyz's last
// check, shutdown, fails from the moment shutdown begins, while the
// server still serves (its pre-shutdown hooks run then), so a load
// balancer stops sending to it; /livez has no such check and passes.
func TestReadyzFailsOnceShutdownBegins(t *testing.T) {
	srv, _ := newUnstarted(t)
	url := srv.URL()
	type answer struct {
		code int
		body string
	}
	during := map[string]answer{}
	srv.AddPreShutdownHook("test-probe", func() error {
		for _, p := range []string{"/readyz?verbose", "/livez?verbose"} {
			code, body := get(t, url, p)
			during[p] = answer{code, body}
		}
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	waitFor(t, waitTimeout, "readiness", func() bool {
		code, _ := get(t, url, "/readyz")
		return code == http.StatusOK
	})
	if _, body := get(t, url, "/readyz?verbose"); !strings.HasSuffix(body, "[+]shutdown ok\nreadyz check passed\n") {
		t.Fatalf("before shutdown: /readyz?verbose = %q, want it to end with [+]shutdown ok", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	done <- nil // for the deferred wait
	if a := during["/readyz?verbose"]; a.code != http.StatusInternalServerError || !strings.HasSuffix(a.body, "[-]shutdown failed: reason withheld\nreadyz check failed\n") {
		t.Errorf("while shutting down: /readyz?verbose = %d %q, want 500 ending with [-]shutdown failed", a.code, a.body)
	}
	if a := during["/livez?verbose"]; a.code != http.StatusOK || strings.Contains(a.body, "shutdown") {
		t.Errorf("while shutting down: /livez?verbose = %d %q, want 200 with no shutdown check", a.code, a.body)
	}
}
