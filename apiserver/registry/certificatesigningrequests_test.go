package registry_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

func newCSR(t *testing.T, name string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: name}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth},
		},
	}
}

// TestCertificateSigningRequests: upstream's three strategies: a create
// records the requesting user and drops the status it was sent; the main
// resource changes neither spec nor status; /approval adds the Approved
// condition (and stamps its times) but no certificate; /status sets the
// certificate; upstream's 422 messages.
func TestCertificateSigningRequests(t *testing.T) {
	r := newRegistry(t)
	user := &auth.User{Name: "alice", UID: "u-1", Groups: []string{"devs", auth.GroupAuthenticated}}
	ctx := request.WithAttributes(context.Background(), auth.Attributes{User: user})
	st := r.Store(registry.CertificateSigningRequests)
	approval := st.WithStrategy(registry.CertificateSigningRequestApprovalStrategy)
	in := newCSR(t, "alice")
	in.Spec.Username = "mallory"
	in.Status.Certificate = []byte("forged")
	out, err := st.Create(ctx, "", in, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	csr := out.(*certificatesv1.CertificateSigningRequest)
	if csr.Spec.Username != "alice" || csr.Spec.UID != "u-1" || len(csr.Spec.Groups) != 2 || csr.Status.Certificate != nil {
		t.Errorf("created: username %q uid %q groups %v certificate %q, want alice's and none", csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Status.Certificate)
	}

	approve := csr.DeepCopy()
	approve.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: "True", Reason: "KubectlApprove"}}
	approve.Status.Certificate = []byte("forged")
	got, _, err := approval.Update(ctx, "", "alice", replaceWith(approve), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := got.(*certificatesv1.CertificateSigningRequest)
	if len(a.Status.Conditions) != 1 || a.Status.Conditions[0].LastUpdateTime.IsZero() || a.Status.Certificate != nil {
		t.Errorf("approved: conditions %v certificate %q, want Approved with its times and no certificate", a.Status.Conditions, a.Status.Certificate)
	}

	main := a.DeepCopy()
	main.Status.Conditions = nil
	main.Spec.Username = "mallory"
	got, _, err = st.Update(ctx, "", "alice", replaceWith(main), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := got.(*certificatesv1.CertificateSigningRequest); m.Spec.Username != "alice" || len(m.Status.Conditions) != 1 {
		t.Errorf("main update: username %q conditions %v, want both kept", m.Spec.Username, m.Status.Conditions)
	}

	deny := a.DeepCopy()
	deny.Status.Conditions = append(deny.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: "True"})
	_, _, err = approval.Update(ctx, "", "alice", replaceWith(deny), nil, nil, registry.Options{})
	wantStatus(t, err, 422, "status.conditions: Invalid value: \"{conditions[{\\\"type\\\": \\\"Approved\\\"}], conditions[{\\\"type\\\": \\\"Denied\\\"}]}\": must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`")

	bad := newCSR(t, "bad")
	bad.Spec.Request = []byte("not a pem")
	bad.Spec.SignerName = ""
	_, err = st.Create(ctx, "", bad, nil, registry.Options{})
	wantStatus(t, err, 422, `CertificateSigningRequest.certificates.k8s.io "bad" is invalid: [spec.request: Invalid value: `)
	wantStatus(t, err, 422, `: PEM block type must be CERTIFICATE REQUEST, spec.signerName: Required value]`)
}
