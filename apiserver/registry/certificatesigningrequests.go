package registry

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/apis/certificates"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install" // legacyscheme: certificates' versions, conversions and declarative validation
	upcertificatesv1 "k8s.io/kubernetes/pkg/apis/certificates/v1"
	csrregistry "k8s.io/kubernetes/pkg/registry/certificates/certificates"

	"github.com/kubesim/kubesim/apiserver/printers"
	"github.com/kubesim/kubesim/apiserver/request"
)

// CertificateSigningRequests is certificates.k8s.io/v1
// certificatesigningrequests, cluster-scoped, with upstream's strategies
// (pkg/registry/certificates/certificates): a create records who asked
// (spec.username, uid, groups, extra: the requesting user's) and starts
// with an empty status; the main resource changes neither spec nor
// status, certificatesigningrequests/approval only the Approved and
// Denied conditions (kubectl certificate approve and deny), and
// certificatesigningrequests/status the certificate and the other
// conditions (the signer's).
var CertificateSigningRequests = &Resource{
	Kind:        certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest"),
	Plural:      "certificatesigningrequests",
	Singular:    "certificatesigningrequest",
	ShortNames:  []string{"csr"},
	NewFunc:     func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
	NewListFunc: func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} },
	Table:       printers.CertificateSigningRequests,
	Default:     upstreamDefaults[certificatesv1.CertificateSigningRequest](nil, csrToInternal, csrFromInternal),
	Strategy:    csrStrategy(),
	Status:      &CertificateSigningRequestStatusStrategy,
	Fields: func(obj runtime.Object) fields.Set {
		csr := obj.(*certificatesv1.CertificateSigningRequest)
		return fields.Set{"metadata.name": csr.Name, "spec.signerName": csr.Spec.SignerName}
	},
	FieldLabels: []string{"metadata.name", "spec.signerName"},
}

var (
	csrToInternal   = upcertificatesv1.Convert_v1_CertificateSigningRequest_To_certificates_CertificateSigningRequest
	csrFromInternal = upcertificatesv1.Convert_certificates_CertificateSigningRequest_To_v1_CertificateSigningRequest
)

// CertificateSigningRequestStatusStrategy is the strategy of
// certificatesigningrequests/status; CertificateSigningRequestApprovalStrategy
// that of certificatesigningrequests/approval.
var (
	CertificateSigningRequestStatusStrategy   = upstreamStrategy(csrregistry.StatusStrategy, "status", csrToInternal, csrFromInternal)
	CertificateSigningRequestApprovalStrategy = upstreamStrategy(csrregistry.ApprovalStrategy, "approval", csrToInternal, csrFromInternal)
)

// csrStrategy is upstream's Strategy, whose PrepareForCreate reads the
// requesting user from the request's context: it runs in BeginCreate,
// which has the context, with the user authentication found.
func csrStrategy() Strategy {
	s := upstreamStrategy(csrregistry.Strategy, "", csrToInternal, csrFromInternal)
	s.PrepareForCreate = nil
	s.BeginCreate = func(ctx context.Context, obj runtime.Object, _ Options) (func(runtime.Object), error) {
		uctx := context.Background()
		if a, ok := request.AttributesFrom(ctx); ok && a.User != nil {
			uctx = genericapirequest.WithUser(uctx, &user.DefaultInfo{Name: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra})
		}
		inPlace(obj, csrToInternal, csrFromInternal, func(in *certificates.CertificateSigningRequest) {
			csrregistry.Strategy.PrepareForCreate(uctx, in)
		})
		return func(runtime.Object) {}, nil
	}
	return s
}
