package pki_test

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// seen is what the test server reports about a request.
type seen struct {
	Proto         string
	ALPN          string
	CommonName    string
	Organizations []string
	Authorization string
}

// startServer starts an HTTPS server with a's serving configuration and
// HTTP/2 enabled, answering every request with what it saw.
func startServer(tb testing.TB, a *pki.Authority) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seen{Proto: r.Proto, ALPN: r.TLS.NegotiatedProtocol, Authorization: r.Header.Get("Authorization")}
		// Only verified chains count: VerifyClientCertIfGiven verified it.
		if len(r.TLS.VerifiedChains) > 0 {
			leaf := r.TLS.VerifiedChains[0][0]
			s.CommonName, s.Organizations = leaf.Subject.CommonName, leaf.Subject.Organization
		}
		_ = json.NewEncoder(w).Encode(s)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = a.ServingTLSConfig()
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	return srv
}

// clientFromKubeconfig writes kc to a file, loads it the way kubectl
// does, and returns client-go's HTTP client for it.
func clientFromKubeconfig(tb testing.TB, a *pki.Authority, serverURL string, id pki.Identity, method pki.AuthMethod) *http.Client {
	tb.Helper()
	kc, err := a.Kubeconfig(serverURL, id, method)
	if err != nil {
		tb.Fatalf("Kubeconfig: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "kube", "config")
	if err := pki.WriteKubeconfig(path, kc); err != nil {
		tb.Fatalf("WriteKubeconfig: %v", err)
	}
	restCfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		tb.Fatalf("load kubeconfig: %v", err)
	}
	restCfg.Timeout = waitfor.Bound
	client, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		tb.Fatalf("HTTPClientFor: %v", err)
	}
	return client
}

func TestEndToEndTLS(t *testing.T) {
	a := mustLoad(t, pki.NewConfig(t.TempDir())) // the real clock: crypto/tls checks validity against it
	srv := startServer(t, a)
	node := pki.Node("node-1")
	tests := []struct {
		name      string
		id        pki.Identity
		method    pki.AuthMethod
		wantCN    string
		wantO     []string
		wantToken bool
	}{
		{"admin certificate", pki.Admin(), pki.ClientCertificate, "admin", []string{"system:masters"}, false},
		{"node certificate", node, pki.ClientCertificate, "system:node:node-1", []string{"system:nodes"}, false},
		{"student token", pki.Student(), pki.BearerToken, "", nil, true},
		{"node token", node, pki.BearerToken, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := clientFromKubeconfig(t, a, srv.URL, tt.id, tt.method)
			resp, err := client.Get(srv.URL + "/version")
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			defer resp.Body.Close()
			var got seen
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if resp.TLS == nil || resp.TLS.NegotiatedProtocol != "h2" || resp.ProtoMajor != 2 {
				t.Errorf("client side: proto %s, ALPN %q, want HTTP/2 negotiated as h2", resp.Proto, resp.TLS.NegotiatedProtocol)
			}
			if got.ALPN != "h2" || got.Proto != "HTTP/2.0" {
				t.Errorf("server side: proto %s, ALPN %q, want HTTP/2.0 over h2", got.Proto, got.ALPN)
			}
			if resp.TLS.Version < tls.VersionTLS12 {
				t.Errorf("TLS version %#x", resp.TLS.Version)
			}
			if got.CommonName != tt.wantCN || strings.Join(got.Organizations, ",") != strings.Join(tt.wantO, ",") {
				t.Errorf("server saw certificate CN %q O %q, want %q %q", got.CommonName, got.Organizations, tt.wantCN, tt.wantO)
			}
			wantAuth := ""
			if tt.wantToken {
				wantAuth = "Bearer " + mustToken(t, a, tt.id)
			}
			if got.Authorization != wantAuth {
				t.Errorf("server saw Authorization %q, want %q", got.Authorization, wantAuth)
			}
		})
	}
}

func TestEndToEndForeignClientCertRejected(t *testing.T) {
	a := mustLoad(t, pki.NewConfig(t.TempDir()))
	other := mustLoad(t, pki.NewConfig(t.TempDir()))
	srv := startServer(t, a)

	kc, err := a.Kubeconfig(srv.URL, pki.Admin(), pki.ClientCertificate)
	if err != nil {
		t.Fatal(err)
	}
	// Same server CA, but the client certificate of another cluster's admin.
	user := kc.AuthInfos[pki.ContextName(pki.Admin())]
	user.ClientCertificateData, user.ClientKeyData = mustClientCert(t, other, pki.Admin())
	restCfg, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	restCfg.Timeout = waitfor.Bound
	client, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(srv.URL + "/version")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("request with a foreign client certificate succeeded: %s", body)
	}
}

func TestKubeconfig(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	tests := []struct {
		name    string
		url     string
		method  pki.AuthMethod
		wantErr string
	}{
		{"client certificate", "https://127.0.0.1:6443", pki.ClientCertificate, ""},
		{"token", "https://localhost:6443", pki.BearerToken, ""},
		{"plain http", "http://127.0.0.1:6443", pki.ClientCertificate, "must be https"},
		{"no host", "https://", pki.ClientCertificate, "must be https"},
		{"host not in the serving certificate", "https://10.9.9.9:6443", pki.ClientCertificate, "add the host to Config.Hosts"},
		{"IPv6 loopback", "https://[::1]:6443", pki.BearerToken, ""},
		{"unknown method", "https://127.0.0.1:6443", pki.AuthMethod(7), "unknown AuthMethod(7)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc, err := a.Kubeconfig(tt.url, pki.Admin(), tt.method)
			if tt.wantErr != "" {
				wantErrContaining(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := pki.WriteKubeconfig(path, kc); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("kubeconfig file: %v, mode %v, want 0600", err, fi.Mode().Perm())
			}
			loaded, err := clientcmd.LoadFromFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if loaded.CurrentContext != "kubesim-admin" {
				t.Errorf("current context %q, want kubesim-admin", loaded.CurrentContext)
			}
			ctx := loaded.Contexts["kubesim-admin"]
			if ctx == nil || ctx.Cluster != "kubesim" || ctx.AuthInfo != "kubesim-admin" || ctx.Namespace != "default" {
				t.Fatalf("context = %+v, want cluster kubesim, user kubesim-admin, namespace default", ctx)
			}
			cl := loaded.Clusters["kubesim"]
			if cl == nil || cl.Server != tt.url || string(cl.CertificateAuthorityData) != string(a.CACertPEM()) {
				t.Fatalf("cluster = %+v, want server %s with the CA embedded", cl, tt.url)
			}
			user := loaded.AuthInfos["kubesim-admin"]
			certPEM, keyPEM := mustClientCert(t, a, pki.Admin())
			switch tt.method {
			case pki.ClientCertificate:
				if string(user.ClientCertificateData) != string(certPEM) || string(user.ClientKeyData) != string(keyPEM) || user.Token != "" {
					t.Errorf("user = %+v, want only the admin client certificate embedded", user)
				}
			case pki.BearerToken:
				if user.Token != mustToken(t, a, pki.Admin()) || len(user.ClientCertificateData) != 0 {
					t.Errorf("user = %+v, want only the admin token", user)
				}
			}
		})
	}
}

// TestKubeconfigsMerge merges the admin and the student kubeconfig as
// kubectl does with KUBECONFIG=admin:student: both users and both
// contexts survive (with the same names they would collide and the
// first file's entry would win).
func TestKubeconfigsMerge(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	dir := t.TempDir()
	var paths []string
	for _, w := range []struct {
		id     pki.Identity
		method pki.AuthMethod
	}{{pki.Admin(), pki.ClientCertificate}, {pki.Student(), pki.BearerToken}} {
		kc, err := a.Kubeconfig("https://127.0.0.1:6443", w.id, w.method)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, w.id.User+".kubeconfig")
		if err := pki.WriteKubeconfig(p, kc); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	merged, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	if merged.CurrentContext != "kubesim-admin" {
		t.Errorf("current context %q, want the first file's, kubesim-admin", merged.CurrentContext)
	}
	for _, name := range []string{"kubesim-admin", "kubesim-student"} {
		ctx := merged.Contexts[name]
		if ctx == nil || ctx.AuthInfo != name || ctx.Cluster != pki.ClusterName {
			t.Errorf("merged context %s = %+v, want user %s on cluster %s", name, ctx, name, pki.ClusterName)
		}
	}
	if u := merged.AuthInfos["kubesim-admin"]; u == nil || len(u.ClientCertificateData) == 0 {
		t.Errorf("merged user kubesim-admin = %+v, want the admin client certificate", u)
	}
	if u := merged.AuthInfos["kubesim-student"]; u == nil || u.Token != mustToken(t, a, pki.Student()) {
		t.Errorf("merged user kubesim-student = %+v, want the student token", u)
	}
}
