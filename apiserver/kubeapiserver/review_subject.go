package kubeapiserver

import (
	"context"
	"fmt"
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	authorizationapi "k8s.io/kubernetes/pkg/apis/authorization"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install" // legacyscheme: authorization's declarative validation
	authorizationapiv1 "k8s.io/kubernetes/pkg/apis/authorization/v1"
	authorizationvalidation "k8s.io/kubernetes/pkg/apis/authorization/validation"

	"github.com/kubesim/kubesim/apiserver"
)

// Kinds of the reviews of another subject's access.
var (
	subjectAccessReviewKind      = authorizationv1.SchemeGroupVersion.WithKind("SubjectAccessReview")
	localSubjectAccessReviewKind = authorizationv1.SchemeGroupVersion.WithKind("LocalSubjectAccessReview")
)

// createSubjectAccessReview answers "may this subject do this?" for the
// user, groups, uid and extra of spec (what an aggregated API server or a
// webhook asks before serving a request it authenticated itself), with
// the authorizers that guard every request, as upstream's
// subjectaccessreview REST: upstream's validation (422 for a spec without
// a subject, or with both or neither attributes, or with metadata), then
// the decision. The object answered is the one posted with its status.
// Nothing is stored.
func (rv *reviews) createSubjectAccessReview(w http.ResponseWriter, r *http.Request, _ apiserver.Params) error {
	obj, err := rv.g.DecodeBody(r, subjectAccessReviewKind, &authorizationv1.SubjectAccessReview{})
	if err != nil {
		return err
	}
	review := obj.(*authorizationv1.SubjectAccessReview)
	// Cluster-scoped: a namespace in metadata is dropped, as upstream's
	// create handler does.
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace("", review); err != nil {
		return err
	}
	in := &authorizationapi.SubjectAccessReview{}
	if err := authorizationapiv1.Convert_v1_SubjectAccessReview_To_authorization_SubjectAccessReview(review, in, nil); err != nil {
		return apierrors.NewInternalError(err)
	}
	if errs := authorizationvalidation.ValidateSubjectAccessReviewCreate(validationContext(r.Context()), legacyscheme.Scheme, in); len(errs) > 0 {
		// The internal object has no kind: upstream's message starts
		// `.authorization.k8s.io "" is invalid`.
		return apierrors.NewInvalid(authorizationapi.Kind(in.Kind), "", errs)
	}
	review.Status = rv.subjectAccess(r, in.Spec)
	return rv.g.WriteObject(w, r, http.StatusCreated, review)
}

// createLocalSubjectAccessReview is createSubjectAccessReview in the
// namespace of the path, as upstream's localsubjectaccessreview REST: the
// object takes the path's namespace (400 if its metadata names another),
// and upstream's validation wants spec.resourceAttributes in that
// namespace and no nonResourceAttributes (422).
func (rv *reviews) createLocalSubjectAccessReview(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
	obj, err := rv.g.DecodeBody(r, localSubjectAccessReviewKind, &authorizationv1.LocalSubjectAccessReview{})
	if err != nil {
		return err
	}
	review := obj.(*authorizationv1.LocalSubjectAccessReview)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(p.Namespace, review); err != nil {
		return err
	}
	in := &authorizationapi.LocalSubjectAccessReview{}
	if err := authorizationapiv1.Convert_v1_LocalSubjectAccessReview_To_authorization_LocalSubjectAccessReview(review, in, nil); err != nil {
		return apierrors.NewInternalError(err)
	}
	if errs := authorizationvalidation.ValidateLocalSubjectAccessReviewCreate(validationContext(r.Context()), legacyscheme.Scheme, in); len(errs) > 0 {
		return apierrors.NewInvalid(authorizationapi.Kind(in.Kind), "", errs)
	}
	// Upstream's own check, after its create handler has given the
	// object the path's namespace: validation has answered any mismatch
	// of spec.resourceAttributes.namespace already.
	if in.Namespace != p.Namespace {
		return apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", p.Namespace))
	}
	review.Status = rv.subjectAccess(r, in.Spec)
	return rv.g.WriteObject(w, r, http.StatusCreated, review)
}

// validationContext is ctx with what upstream's declarative validation
// reads from a request: the group-version the object came in.
func validationContext(ctx context.Context) context.Context {
	gv := authorizationv1.SchemeGroupVersion
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{APIGroup: gv.Group, APIVersion: gv.Version})
}
