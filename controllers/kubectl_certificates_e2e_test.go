package controllers_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/pki"
)

// TestKubectlCertificateApproveAddsUser is the "add a user" lab: a key
// and a CSR for jane (group devs) made as openssl makes them, the
// CertificateSigningRequest applied with kubectl, `kubectl certificate
// approve`, and the certificate kube-controller-manager's signer issues
// then authenticates jane: forbidden with upstream's message until a
// RoleBinding lets her list pods. Skipped when kubectl is not on PATH.
func TestKubectlCertificateApproveAddsUser(t *testing.T) {
	c, admin := startCluster(t)
	k := newKubectl(t, c)
	key, csrPEM := newUserKeyAndCSR(t, "jane", "devs")
	manifest := `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: jane
spec:
  request: ` + base64.StdEncoding.EncodeToString(csrPEM) + `
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`
	if r := k.run(t, manifest, "apply", "-f", "-"); r.err != nil || r.stdout != "certificatesigningrequest.certificates.k8s.io/jane created\n" {
		t.Fatalf("kubectl apply: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	rows := table(k.must(t, "get", "csr"))[0]
	want := "jane kubernetes.io/kube-apiserver-client " + pki.AdminUser + " 24h Pending"
	if len(rows) != 2 || len(rows[1]) != 6 || strings.Join(append(rows[1][:1:1], rows[1][2:]...), " ") != want {
		t.Fatalf("kubectl get csr: %q, want the row %q with its age second", rows, want)
	}
	k.mustPrint(t, "certificatesigningrequest.certificates.k8s.io/jane approved\n", "certificate", "approve", "jane")
	var certPEM []byte
	waitFor(t, "the signer to issue jane's certificate", func(ctx context.Context) (bool, error) {
		csr, err := admin.CertificatesV1().CertificateSigningRequests().Get(ctx, "jane", metav1.GetOptions{})
		certPEM = csr.Status.Certificate
		return err == nil && len(certPEM) > 0, err
	})
	if got := table(k.must(t, "get", "csr", "jane"))[0][1]; got[len(got)-1] != "Approved,Issued" {
		t.Errorf("kubectl get csr jane: condition %q, want Approved,Issued", got[len(got)-1])
	}
	jane := &kubectl{bin: k.bin, kubeconfig: userKubeconfig(t, c, "jane", certPEM, key), home: t.TempDir()}
	const forbidden = `Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"`
	if got := jane.mustFail(t, "get", "pods"); strings.TrimSpace(got) != forbidden {
		t.Fatalf("jane's kubectl get pods: %q, want %q", got, forbidden)
	}
	k.mustPrint(t, "rolebinding.rbac.authorization.k8s.io/jane-view created\n", "create", "rolebinding", "jane-view", "--clusterrole=view", "--user=jane")
	waitFor(t, "jane to list pods", func(context.Context) (bool, error) {
		r := jane.run(t, "", "get", "pods")
		return r.err == nil && r.stderr == "No resources found in default namespace.\n", nil
	})
	if who := jane.must(t, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"); who != `jane ["devs","system:authenticated"]` {
		t.Errorf("jane's kubectl auth whoami: %q", who)
	}
}

// newUserKeyAndCSR makes a key and a PEM certificate request for the
// user (CN) in the group (O), as `openssl req -subj /CN=user/O=group`.
func newUserKeyAndCSR(t *testing.T, user, group string) (keyPEM, csrPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: user, Organization: []string{group}}}, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// userKubeconfig writes a kubeconfig for the cluster whose user
// authenticates with the client certificate certPEM and its key.
func userKubeconfig(t *testing.T, c *cluster.Cluster, user string, certPEM, keyPEM []byte) string {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := kc.Contexts[kc.CurrentContext]
	kc.AuthInfos = map[string]*clientcmdapi.AuthInfo{user: {ClientCertificateData: certPEM, ClientKeyData: keyPEM}}
	ctx.AuthInfo = user
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
