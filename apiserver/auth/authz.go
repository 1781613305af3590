package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// Decision is an authorizer's answer. The zero value denies.
type Decision int

// Decisions.
const (
	// DecisionDeny refuses the request; no later authorizer is asked.
	DecisionDeny Decision = iota
	// DecisionAllow lets the request through; no later authorizer is asked.
	DecisionAllow
	// DecisionNoOpinion leaves the request to the next authorizer.
	DecisionNoOpinion
)

// String returns "Deny", "Allow" or "NoOpinion".
func (d Decision) String() string {
	switch d {
	case DecisionDeny:
		return "Deny"
	case DecisionAllow:
		return "Allow"
	case DecisionNoOpinion:
		return "NoOpinion"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Result is an authorizer's answer with its explanation.
type Result struct {
	Decision Decision
	// Reason is the authorizer's own explanation, as kube-apiserver's
	// authorizers give it: RBAC's `RBAC: allowed by ClusterRoleBinding
	// "cluster-admin" of ClusterRole "cluster-admin" to Group
	// "system:masters"` on Allow, or why a request was not allowed (it ends
	// the 403 message).
	Reason string
	// Authorizer names who decided: "Node" or "RBAC" (empty for a Chain's
	// final Deny).
	Authorizer string
	// Rule is the policy rule that allowed the request, human readable,
	// e.g. `verbs=[get list watch] apiGroups=[""] resources=[pods]`; empty
	// unless Decision is Allow.
	Rule string
}

// Authorizer decides whether a request may proceed. Implementations must be
// safe for concurrent use. An error means the decision could not be made
// completely; the Decision still stands (an Allow with an error is an
// Allow).
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Result, error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Result, error)

// Authorize calls f(ctx, a).
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Result, error) {
	return f(ctx, a)
}

// Chain returns an Authorizer that asks authorizers in order, like
// kube-apiserver's --authorization-mode=Node,RBAC: the first Allow or Deny
// is the answer (with that authorizer's error). When all have no opinion
// the answer is Deny; its Reason joins, one per line, the non-empty
// reasons the authorizers gave, each prefixed with the lowercased
// Authorizer name as upstream names its authorizers ("node: ...",
// "rbac: ..."), so it is "" when nobody explained; the errors seen are
// returned together. With no authorizers every request is denied. Nil
// entries are skipped.
func Chain(authorizers ...Authorizer) Authorizer {
	list := make([]Authorizer, 0, len(authorizers))
	for _, z := range authorizers {
		if z != nil {
			list = append(list, z)
		}
	}
	return AuthorizerFunc(func(ctx context.Context, a Attributes) (Result, error) {
		var (
			reasons []string
			errs    []error
		)
		for _, z := range list {
			res, err := z.Authorize(ctx, a)
			if res.Decision != DecisionNoOpinion {
				return res, err
			}
			if err != nil {
				errs = append(errs, err)
			}
			if res.Reason != "" {
				if res.Authorizer != "" {
					reasons = append(reasons, strings.ToLower(res.Authorizer)+": "+res.Reason)
				} else {
					reasons = append(reasons, res.Reason)
				}
			}
		}
		return Result{Decision: DecisionDeny, Reason: strings.Join(reasons, "\n")}, utilerrors.NewAggregate(errs)
	})
}

// htmlSanitizer keeps 403 messages from looking like HTML, as upstream does.
var htmlSanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// ForbiddenMessage returns kube-apiserver's explanation of a denied
// request, without the reason, e.g.
//
//	User "student" cannot create resource "pods" in API group "" in the namespace "default"
//	User "system:kube-scheduler" cannot delete resource "nodes" in API group "" at the cluster scope
//	User "x" cannot get path "/metrics"
//
// The resource reads "pods/status" when there is a subresource; a nil
// User reads as "". The characters & < > are escaped as upstream does.
func ForbiddenMessage(a Attributes) string {
	user := ""
	if a.User != nil {
		user = a.User.Name
	}
	var msg string
	switch {
	case !a.ResourceRequest:
		msg = fmt.Sprintf("User %q cannot %s path %q", user, a.Verb, a.Path)
	default:
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		if a.Namespace != "" {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", user, a.Verb, resource, a.APIGroup, a.Namespace)
		} else {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", user, a.Verb, resource, a.APIGroup)
		}
	}
	return htmlSanitizer.Replace(msg)
}

// Forbidden returns the 403 Status kube-apiserver answers a denied request
// with: reason Forbidden, details naming the group, resource and name, and
// the message `<resource>[ "<name>"] is forbidden: <ForbiddenMessage>`
// (just `forbidden: ...` for a non-resource request), followed by
// ": <reason>" when reason is not empty, e.g.
//
//	pods is forbidden: User "student" cannot create resource "pods" in API group "" in the namespace "default"
//	nodes "node-b" is forbidden: User "system:kube-scheduler" cannot delete resource "nodes" in API group "" at the cluster scope
func Forbidden(a Attributes, reason string) *apierrors.StatusError {
	msg := ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	return apierrors.NewForbidden(gr, a.Name, errors.New(msg))
}
