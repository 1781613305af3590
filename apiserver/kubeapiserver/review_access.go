package kubeapiserver

import (
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// createSelfSubjectAccessReview answers "may I do this?" for the caller
// (what kubectl auth can-i asks), with the same authorizers that guard
// every request. Nothing is stored.
func (rv *reviews) createSelfSubjectAccessReview(w http.ResponseWriter, r *http.Request, _ apiserver.Params) error {
	gvk := authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview")
	obj, err := rv.g.DecodeBody(r, gvk, &authorizationv1.SelfSubjectAccessReview{})
	if err != nil {
		return err
	}
	review := obj.(*authorizationv1.SelfSubjectAccessReview)
	ra, nra := review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes
	if (ra == nil) == (nra == nil) {
		return apierrors.NewInvalid(gvk.GroupKind(), "", field.ErrorList{
			field.Invalid(field.NewPath("spec", "resourceAttributes"), review.Spec.ResourceAttributes,
				"exactly one of nonResourceAttributes or resourceAttributes must be specified")})
	}
	caller, _ := request.AttributesFrom(r.Context())
	a := auth.Attributes{User: caller.User}
	if ra != nil {
		a.ResourceRequest = true
		a.Verb, a.APIGroup, a.APIVersion = ra.Verb, ra.Group, ra.Version
		a.Resource, a.Subresource, a.Namespace, a.Name = ra.Resource, ra.Subresource, ra.Namespace, ra.Name
	} else {
		a.Verb, a.Path = nra.Verb, nra.Path
	}
	res, err := rv.g.Authorizer().Authorize(r.Context(), a)
	review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: err == nil && res.Decision == auth.DecisionAllow, Reason: res.Reason}
	if err != nil {
		review.Status.EvaluationError = err.Error()
	}
	outcome := "denied"
	if review.Status.Allowed {
		outcome = "allowed"
	}
	request.TraceFrom(r.Context()).Step("reviewed", outcome, auth.ForbiddenMessage(a), "reason", res.Reason, "rule", res.Rule)
	return rv.g.WriteObject(w, r, http.StatusCreated, review)
}
