package kubeapiserver

import (
	"fmt"
	"net/http"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationapi "k8s.io/kubernetes/pkg/apis/authorization"
	authorizationutil "k8s.io/kubernetes/pkg/registry/authorization/util"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// subjectAccess decides spec, a validated access review's, with the
// server's authorizers, as upstream's access review REST does: the
// attributes are upstream's (authorizationutil.AuthorizationAttributesFrom:
// the subject exactly as spec gives it, version "*" when empty, the
// selectors parsed), allowed and denied are the authorizers' decision
// (kubesim's Chain denies when nobody has an opinion; only an authorizer's
// own Deny is "denied"), and evaluationError adds upstream's notes on
// selectors that did not parse.
func (rv *reviews) subjectAccess(r *http.Request, spec authorizationapi.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
	record := authorizationutil.AuthorizationAttributesFrom(spec)
	a := attributesOf(record)
	res, err := rv.g.Authorizer().Authorize(r.Context(), a)
	status := authorizationv1.SubjectAccessReviewStatus{
		Allowed:         res.Decision == auth.DecisionAllow,
		Denied:          res.Decision == auth.DecisionDeny && res.Authorizer != "",
		Reason:          res.Reason,
		EvaluationError: authorizationutil.BuildEvaluationError(err, record),
	}
	outcome := "denied"
	if status.Allowed {
		outcome = "allowed"
	}
	request.TraceFrom(r.Context()).Step("reviewed", outcome, auth.ForbiddenMessage(a), "reason", res.Reason, "rule", res.Rule)
	return status
}

// attributesOf is kubesim's form of upstream's authorizer attributes.
func attributesOf(rec authorizer.AttributesRecord) auth.Attributes {
	u := &auth.User{Name: rec.User.GetName(), UID: rec.User.GetUID(), Groups: rec.User.GetGroups(), Extra: rec.User.GetExtra()}
	return auth.Attributes{
		User: u, Verb: rec.Verb, ResourceRequest: rec.ResourceRequest, Path: rec.Path,
		APIGroup: rec.APIGroup, APIVersion: rec.APIVersion, Resource: rec.Resource, Subresource: rec.Subresource,
		Namespace: rec.Namespace, Name: rec.Name,
		FieldSelector: fieldSelectorString(rec.FieldSelectorRequirements),
	}
}

// fieldSelectorString writes the field selector requirements a review
// asked about as the raw selector kubesim's Node authorizer reads (a
// kubelet may list only its own pods).
func fieldSelectorString(reqs fields.Requirements) string {
	parts := make([]string, 0, len(reqs))
	for _, req := range reqs {
		op := "="
		if req.Operator == selection.NotEquals {
			op = "!="
		}
		parts = append(parts, fmt.Sprintf("%s%s%s", req.Field, op, fields.EscapeValue(req.Value)))
	}
	return strings.Join(parts, ",")
}
