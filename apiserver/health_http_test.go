package apiserver_test

import (
	"io"
	"net/http"
	"testing"
)

// TestUnknownHealthCheck checks the answer to a health check path that
// names no check against kube-apiserver v1.37.2's: Go's plain 404.
func TestUnknownHealthCheck(t *testing.T) {
	ts := startServer(t)
	req, _ := http.NewRequest("GET", ts.url+"/healthz/nope", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 404 || ct != "text/plain; charset=utf-8" || string(body) != "404 page not found\n" {
		t.Errorf("got %d %q %q, want 404 %q %q", resp.StatusCode, ct, body, "text/plain; charset=utf-8", "404 page not found\n")
	}
}
