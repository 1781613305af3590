package pki

import (
	"crypto/x509"
	"testing"
)

func TestIssueServingCert(t *testing.T) {
	a, err := Load(NewConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	cert, err := a.IssueServingCert("metrics-server", []string{"metrics-server.kube-system.svc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := x509.VerifyOptions{Roots: a.CAPool(), DNSName: "metrics-server.kube-system.svc", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if _, err := cert.Leaf.Verify(opts); err != nil {
		t.Fatalf("the certificate does not verify for metrics-server.kube-system.svc against the CA: %v", err)
	}
	opts.DNSName = "kubernetes.default.svc"
	if _, err := cert.Leaf.Verify(opts); err == nil {
		t.Fatal("the certificate verifies for a name it was not issued for")
	}
	if _, err := a.IssueServingCert("x", nil, nil); err == nil {
		t.Fatal("a certificate without names: got no error")
	}
}
