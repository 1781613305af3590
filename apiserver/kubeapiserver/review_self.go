package kubeapiserver

import (
	"fmt"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Kinds of the self reviews.
var (
	selfSubjectReviewKind      = authenticationv1.SchemeGroupVersion.WithKind("SelfSubjectReview")
	selfSubjectRulesReviewKind = authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectRulesReview")
)

// reviews serves kube-apiserver's reviews: create-only resources computed
// from the request's user and the authorizers, never stored.
type reviews struct {
	g     *apiserver.Server
	rules auth.RuleResolver
}

// list is authentication.k8s.io/v1's selfsubjectreviews (kubectl auth
// whoami) and tokenreviews, and authorization.k8s.io/v1's
// selfsubjectaccessreviews (kubectl auth can-i), selfsubjectrulesreviews
// (kubectl auth can-i --list), subjectaccessreviews and
// localsubjectaccessreviews.
func (rv *reviews) list() []apiserver.Review {
	return []apiserver.Review{
		{Plural: "selfsubjectreviews", Singular: "selfsubjectreview", Kind: selfSubjectReviewKind, Create: rv.createSelfSubjectReview},
		{Plural: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview",
			Kind: authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview"), Create: rv.createSelfSubjectAccessReview},
		{Plural: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Kind: selfSubjectRulesReviewKind, Create: rv.createSelfSubjectRulesReview},
		{Plural: "subjectaccessreviews", Singular: "subjectaccessreview", Kind: subjectAccessReviewKind, Create: rv.createSubjectAccessReview},
		{Plural: "localsubjectaccessreviews", Singular: "localsubjectaccessreview", Kind: localSubjectAccessReviewKind,
			Namespaced: true, Create: rv.createLocalSubjectAccessReview},
		{Plural: "tokenreviews", Singular: "tokenreview", Kind: tokenReviewKind, Create: rv.createTokenReview},
	}
}

// createSelfSubjectReview answers "who am I?" with the caller's user as
// authentication (and impersonation) left it, as upstream's
// selfsubjectreview REST does: a new object whose only metadata is the
// creation time, whatever the request carried. Nothing is stored.
func (rv *reviews) createSelfSubjectReview(w http.ResponseWriter, r *http.Request, _ apiserver.Params) error {
	if _, err := rv.g.DecodeBody(r, selfSubjectReviewKind, &authenticationv1.SelfSubjectReview{}); err != nil {
		return err
	}
	caller, _ := request.AttributesFrom(r.Context())
	u := caller.User
	if u == nil {
		return apierrors.NewBadRequest("no user present on request")
	}
	review := &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now())},
		Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{
			Username: u.Name, UID: u.UID, Groups: append([]string(nil), u.Groups...),
			Extra: make(map[string]authenticationv1.ExtraValue, len(u.Extra)),
		}},
	}
	for k, v := range u.Extra {
		review.Status.UserInfo.Extra[k] = append(authenticationv1.ExtraValue(nil), v...)
	}
	request.TraceFrom(r.Context()).Step("reviewed", "ok", fmt.Sprintf("user %q, groups %v", u.Name, u.Groups))
	return rv.g.WriteObject(w, r, http.StatusCreated, review)
}

// createSelfSubjectRulesReview lists what the caller may do in
// spec.namespace, from the same authorizers that guard every request (the
// Node authorizer, then RBAC), as upstream's selfsubjectrulesreview REST
// does: 400 "no namespace on request" without a namespace; the rules
// found, incomplete when an authorizer cannot list them, and the errors in
// status.evaluationError. Nothing is stored.
func (rv *reviews) createSelfSubjectRulesReview(w http.ResponseWriter, r *http.Request, _ apiserver.Params) error {
	obj, err := rv.g.DecodeBody(r, selfSubjectRulesReviewKind, &authorizationv1.SelfSubjectRulesReview{})
	if err != nil {
		return err
	}
	caller, _ := request.AttributesFrom(r.Context())
	if caller.User == nil {
		return apierrors.NewBadRequest("no user present on request")
	}
	namespace := obj.(*authorizationv1.SelfSubjectRulesReview).Spec.Namespace
	if namespace == "" {
		return apierrors.NewBadRequest("no namespace on request")
	}
	set, rerr := rv.rules.RulesFor(r.Context(), caller.User, namespace)
	review := &authorizationv1.SelfSubjectRulesReview{Status: authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    nonNil(set.Resource),
		NonResourceRules: nonNil(set.NonResource),
		Incomplete:       set.Incomplete,
	}}
	if rerr != nil {
		review.Status.EvaluationError = rerr.Error()
	}
	request.TraceFrom(r.Context()).Step("reviewed", "ok",
		fmt.Sprintf("%d resource rules, %d non-resource rules for %q in namespace %q", len(set.Resource), len(set.NonResource), caller.User.Name, namespace))
	return rv.g.WriteObject(w, r, http.StatusCreated, review)
}

// nonNil returns an empty slice for nil, as upstream's conversion makes
// one (the fields are then [] on the wire, not absent).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ruleResolver is what kube-apiserver lists rules from: the Node
// authorizer, then RBAC (its system:masters authorizer lists none).
func ruleResolver(rbac *registry.RBACCache) auth.RuleResolver {
	return auth.UnionRules(auth.NodeRuleResolver(), auth.RBACRuleResolver(rbac))
}
