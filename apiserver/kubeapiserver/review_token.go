package kubeapiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

var tokenReviewKind = authenticationv1.SchemeGroupVersion.WithKind("TokenReview")

// errBadAuthenticatorAudiences is upstream's answer when an authenticator
// accepted a token for audiences other than those asked for.
var errBadAuthenticatorAudiences = apierrors.NewInternalError(errors.New("error validating audiences"))

// createTokenReview answers "whose is this token?" (what an aggregated
// API server or a kubelet's webhook authentication asks) with the
// authenticators that authenticate every request, as upstream's
// tokenreview REST: 400 without spec.token; else the posted object with
// status.authenticated, the user and the audiences the token is good for
// (spec.audiences, the API audiences when empty), or status.error (a
// token nobody recognises: "invalid bearer token"). Like upstream's, a
// token that leaves no bearer token in the header (blanks) is anonymous.
// Nothing is stored.
func (rv *reviews) createTokenReview(w http.ResponseWriter, r *http.Request, _ apiserver.Params) error {
	obj, err := rv.g.DecodeBody(r, tokenReviewKind, &authenticationv1.TokenReview{})
	if err != nil {
		return err
	}
	review := obj.(*authenticationv1.TokenReview)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace("", review); err != nil {
		return err
	}
	if review.Spec.Token == "" {
		return apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	status, err := rv.reviewToken(r.Context(), review.Spec)
	if err != nil {
		return err
	}
	review.Status = status
	request.TraceFrom(r.Context()).Step("reviewed", fmt.Sprintf("authenticated=%t", status.Authenticated),
		fmt.Sprintf("token of %q for audiences %v", status.User.Username, status.Audiences), "error", status.Error)
	return rv.g.WriteObject(w, r, http.StatusCreated, review)
}

// reviewToken authenticates spec.token as upstream does: a request that
// carries nothing but "Authorization: Bearer <token>", asking for
// spec.audiences or the API audiences.
func (rv *reviews) reviewToken(ctx context.Context, spec authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, error) {
	auds := spec.Audiences
	if len(auds) == 0 {
		auds = rv.g.APIAudiences()
	}
	if len(auds) > 0 {
		ctx = auth.WithAudiences(ctx, auds)
	}
	fake, err := http.NewRequestWithContext(ctx, http.MethodPost, "", nil)
	if err != nil {
		return authenticationv1.TokenReviewStatus{}, apierrors.NewInternalError(err)
	}
	fake.Header.Add("Authorization", "Bearer "+spec.Token)
	res, ok, err := rv.g.Authenticator().AuthenticateRequest(fake)
	status := authenticationv1.TokenReviewStatus{Authenticated: ok}
	if err != nil {
		status.Error = err.Error()
	}
	if len(auds) > 0 && res != nil && !slices.ContainsFunc(res.Audiences, func(a string) bool { return slices.Contains(auds, a) }) {
		return status, errBadAuthenticatorAudiences
	}
	if res != nil && res.User != nil {
		u := res.User
		status.User = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups,
			Extra: make(map[string]authenticationv1.ExtraValue, len(u.Extra))}
		for k, v := range u.Extra {
			status.User.Extra[k] = authenticationv1.ExtraValue(v)
		}
		status.Audiences = res.Audiences
	}
	return status, nil
}
