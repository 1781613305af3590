package kubelet

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
)

// TestServingCertificateIssuedOnFirstHandshake: a server given IssueCert
// instead of Cert makes its certificate on the first TLS handshake, once,
// and serves with it.
func TestServingCertificateIssuedOnFirstHandshake(t *testing.T) {
	ca, err := pki.Load(pki.NewConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var issued atomic.Int32
	cfg := &ServingConfig{
		ClientCAs:    ca.CAPool(),
		AllowedUsers: []string{"kube-apiserver-kubelet-client"},
		IssueCert: func() (tls.Certificate, error) {
			issued.Add(1)
			return ca.IssueServingCert("node-1", []string{"node-1"}, nil)
		},
	}
	if err := cfg.validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	srv, err := listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.serve(ctx, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	if n := issued.Load(); n != 0 {
		t.Fatalf("%d certificates issued before any handshake, want 0", n)
	}
	certPEM, keyPEM, err := ca.ClientCert(pki.Identity{User: "kube-apiserver-kubelet-client"})
	if err != nil {
		t.Fatal(err)
	}
	clientCert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates: []tls.Certificate{clientCert}, RootCAs: ca.CAPool(), ServerName: "node-1",
	}, DisableKeepAlives: true}}
	for range 2 {
		resp, err := client.Get("https://127.0.0.1:" + strconv.Itoa(srv.port()) + "/")
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "ok" {
			t.Errorf("GET: %d %q, want 200 ok", resp.StatusCode, body)
		}
	}
	if n := issued.Load(); n != 1 {
		t.Errorf("%d certificates issued for two handshakes, want 1", n)
	}
}
