package apiserver

import (
	"fmt"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Kinds of the self reviews.
var (
	selfSubjectReviewKind      = authenticationv1.SchemeGroupVersion.WithKind("SelfSubjectReview")
	selfSubjectRulesReviewKind = authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectRulesReview")
)

// authenticationReviews are authentication.k8s.io/v1's reviews:
// selfsubjectreviews (kubectl auth whoami).
func authenticationReviews() []review {
	return []review{{
		plural: "selfsubjectreviews", singular: "selfsubjectreview", kind: selfSubjectReviewKind,
		create: func(s *Server) HandlerFunc { return s.createSelfSubjectReview },
	}}
}

// authorizationReviews are authorization.k8s.io/v1's reviews:
// selfsubjectaccessreviews (kubectl auth can-i) and
// selfsubjectrulesreviews.
func authorizationReviews() []review {
	return []review{{
		plural: "selfsubjectaccessreviews", singular: "selfsubjectaccessreview",
		kind:   authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview"),
		create: func(s *Server) HandlerFunc { return s.createSelfSubjectAccessReview },
	}, selfSubjectRulesReview()}
}

// selfSubjectRulesReview is authorization.k8s.io/v1's
// selfsubjectrulesreviews (kubectl auth can-i --list).
func selfSubjectRulesReview() review {
	return review{
		plural: "selfsubjectrulesreviews", singular: "selfsubjectrulesreview", kind: selfSubjectRulesReviewKind,
		create: func(s *Server) HandlerFunc { return s.createSelfSubjectRulesReview },
	}
}

// decodeReview reads a review's body as kind into obj, after negotiating
// the response's form.
func (s *Server) decodeReview(r *http.Request, kind schema.GroupVersionKind, into runtime.Object) (runtime.Object, output, error) {
	o, err := negotiate(r)
	if err != nil {
		return nil, o, err
	}
	body, err := readBody(r, s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return nil, o, err
	}
	obj, _, err := decodeBody(r, body, kind, into, "")
	return obj, o, err
}

// createSelfSubjectReview answers "who am I?" with the caller's user as
// authentication (and impersonation) left it, as upstream's
// selfsubjectreview REST does: a new object whose only metadata is the
// creation time, whatever the request carried. Nothing is stored.
func (s *Server) createSelfSubjectReview(w http.ResponseWriter, r *http.Request, _ Params) error {
	_, o, err := s.decodeReview(r, selfSubjectReviewKind, &authenticationv1.SelfSubjectReview{})
	if err != nil {
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
	s.writeObject(w, r, http.StatusCreated, review, o)
	return nil
}

// createSelfSubjectRulesReview lists what the caller may do in
// spec.namespace, from the same authorizers that guard every request (the
// Node authorizer, then RBAC), as upstream's selfsubjectrulesreview REST
// does: 400 "no namespace on request" without a namespace; the rules
// found, incomplete when an authorizer cannot list them, and the errors in
// status.evaluationError. Nothing is stored.
func (s *Server) createSelfSubjectRulesReview(w http.ResponseWriter, r *http.Request, _ Params) error {
	obj, o, err := s.decodeReview(r, selfSubjectRulesReviewKind, &authorizationv1.SelfSubjectRulesReview{})
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
	set, rerr := s.rules.RulesFor(r.Context(), caller.User, namespace)
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
	s.writeObject(w, r, http.StatusCreated, review, o)
	return nil
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
func (s *Server) ruleResolver() auth.RuleResolver {
	return auth.UnionRules(auth.NodeRuleResolver(), auth.RBACRuleResolver(s.rbac))
}
