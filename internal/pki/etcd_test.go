package pki_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
)

func TestCreateEtcdPKI(t *testing.T) {
	cfg := pki.NewConfig(t.TempDir())
	cfg.Hosts = []string{"10.0.0.7"}
	if _, err := pki.LoadEtcdPKI(cfg.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadEtcdPKI of an empty dir: %v, want fs.ErrNotExist", err)
	}
	files, err := pki.CreateEtcdPKI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(files.ServerCert)
	if _, err := pki.CreateEtcdPKI(cfg); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(files.ServerCert); !bytes.Equal(before, after) {
		t.Error("a second CreateEtcdPKI replaced a good server certificate")
	}
	if _, err := pki.LoadEtcdPKI(cfg.Dir); err != nil {
		t.Fatalf("LoadEtcdPKI: %v", err)
	}
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile(files.CACert)
	pool.AppendCertsFromPEM(caPEM)
	for _, tt := range []struct {
		cert, key string
		usages    []x509.ExtKeyUsage
		host      string
	}{
		{files.ServerCert, files.ServerKey, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, "10.0.0.7"},
		{files.PeerCert, files.PeerKey, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, "127.0.0.1"},
		{files.ClientCert, files.ClientKey, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, ""},
	} {
		pair, err := tls.LoadX509KeyPair(tt.cert, tt.key)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(tt.cert), err)
		}
		leaf, _ := x509.ParseCertificate(pair.Certificate[0])
		for _, u := range tt.usages {
			if !slices.Contains(leaf.ExtKeyUsage, u) {
				t.Errorf("%s lacks usage %v", filepath.Base(tt.cert), u)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: tt.host, KeyUsages: []x509.ExtKeyUsage{u}}); err != nil {
				t.Errorf("%s does not verify for %q, usage %v: %v", filepath.Base(tt.cert), tt.host, u, err)
			}
		}
	}
}
