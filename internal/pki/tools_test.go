package pki_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// lookTool returns the path of a command-line tool, or skips the test.
func lookTool(tb testing.TB, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		tb.Skipf("%s not on PATH: %v", name, err)
	}
	return path
}

func runTool(tb testing.TB, name string, args ...string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitfor.Bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookTool(tb, name), args...)
	cmd.Env = append(os.Environ(), "HOME="+tb.TempDir())
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr)
	}
	return out
}

// TestCurlHTTP2ClientCert checks the files on disk with an OpenSSL-based
// client: CA, PKCS#8 client key, ALPN h2.
func TestCurlHTTP2ClientCert(t *testing.T) {
	lookTool(t, "curl")
	a := mustLoad(t, pki.NewConfig(t.TempDir()))
	srv := startServer(t, a)
	mustClientCert(t, a, pki.Node("node-1"))
	dir := a.Dir()
	out := runTool(t, "curl", "--silent", "--show-error", "--http2",
		"--cacert", filepath.Join(dir, "ca.crt"),
		"--cert", filepath.Join(dir, "system-node-node-1.crt"),
		"--key", filepath.Join(dir, "system-node-node-1.key"),
		srv.URL+"/version")
	var got seen
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Proto != "HTTP/2.0" || got.CommonName != "system:node:node-1" {
		t.Errorf("server saw %+v, want HTTP/2.0 from system:node:node-1", got)
	}
}

// TestKubectlUsesKubeconfig checks a written kubeconfig with kubectl.
func TestKubectlUsesKubeconfig(t *testing.T) {
	lookTool(t, "kubectl")
	a := mustLoad(t, pki.NewConfig(t.TempDir()))
	srv := startServer(t, a)
	for _, m := range []pki.AuthMethod{pki.ClientCertificate, pki.BearerToken} {
		t.Run(m.String(), func(t *testing.T) {
			kc, err := a.Kubeconfig(srv.URL, pki.Admin(), m)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := pki.WriteKubeconfig(path, kc); err != nil {
				t.Fatal(err)
			}
			out := runTool(t, "kubectl", "--kubeconfig", path, "--cache-dir", t.TempDir(), "get", "--raw", "/version")
			var got seen
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got.Proto != "HTTP/2.0" {
				t.Errorf("kubectl spoke %s, want HTTP/2.0", got.Proto)
			}
			switch m {
			case pki.ClientCertificate:
				if got.CommonName != "admin" {
					t.Errorf("server saw CN %q, want admin", got.CommonName)
				}
			case pki.BearerToken:
				if got.Authorization != "Bearer "+mustToken(t, a, pki.Admin()) {
					t.Errorf("server saw Authorization %q, want the admin token", got.Authorization)
				}
			}
		})
	}
}
