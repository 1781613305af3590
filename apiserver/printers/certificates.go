package printers

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// certificateSigningRequestColumns are the columns of `kubectl get csr`
// (upstream's certificateSigningRequestColumnDefinitions, whose
// descriptions are v1beta1's docs).
var certificateSigningRequestColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "SignerName", Type: "string", Description: csrSpecDoc["signerName"]},
	{Name: "Requestor", Type: "string", Description: csrSpecDoc["request"]},
	{Name: "RequestedDuration", Type: "string", Description: csrSpecDoc["expirationSeconds"]},
	{Name: "Condition", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]},
}

var csrSpecDoc = certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()

// certificateSigningRequest prints NAME AGE SIGNERNAME REQUESTOR
// REQUESTEDDURATION CONDITION (upstream's printCertificateSigningRequest).
func (p printer) certificateSigningRequest(csr *certificatesv1.CertificateSigningRequest) metav1.TableRow {
	signer := "<none>"
	if csr.Spec.SignerName != "" {
		signer = csr.Spec.SignerName
	}
	requested := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return metav1.TableRow{
		Cells:  []any{csr.Name, p.since(csr.CreationTimestamp.Time), signer, csr.Spec.Username, requested, csrCondition(csr)},
		Object: runtime.RawExtension{Object: csr},
	}
}

// csrCondition is Denied, Approved or Pending, then ",Failed" and
// ",Issued" (upstream's extractCSRStatus).
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	if denied {
		status = "Denied"
	} else if approved {
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

// CertificateSigningRequests prints certificate signing requests.
var CertificateSigningRequests = tableHandler(certificateSigningRequestColumns, printer.certificateSigningRequest)
