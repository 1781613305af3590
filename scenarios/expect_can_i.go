package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cluster"
)

// CanIExpectation: a SelfSubjectAccessReview sent as User (what `kubectl
// auth can-i VERB RESOURCE[/NAME] --as USER` asks) answers Allowed.
// Resource may name a subresource ("pods/status"); Name, if set, one
// object (a rule may list resourceNames); Namespace "" asks at the
// cluster scope. It is polled like every expectation, so it also waits for the
// API server's authorizer to see a new binding.
type CanIExpectation struct {
	User, Verb, Resource, Name, Namespace string
	Allowed                               bool
}

var _ prober = (*CanIExpectation)(nil)

// canIKeys are the fields of canI.
var canIKeys = []string{"user", "verb", "resource", "name", "namespace", "allowed"}

func (e *CanIExpectation) Kind() string { return "canI" }
func (e *CanIExpectation) String() string {
	verdict := "yes"
	if !e.Allowed {
		verdict = "no"
	}
	what := e.Resource
	if e.Name != "" {
		what += " " + e.Name
	}
	return fmt.Sprintf("canI %s %s as %s in %q: %s", e.Verb, what, e.User, e.Namespace, verdict)
}

// parseCanI reads {user, verb, resource, name, namespace, allowed}: user,
// verb and resource are required, name is none, namespace default and
// allowed true unless given.
func parseCanI(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, canIKeys)
	if err != nil {
		return nil, err
	}
	e := &CanIExpectation{Namespace: DefaultNamespace, Allowed: true}
	for _, req := range []string{"user", "verb", "resource"} {
		if _, ok := fields[req]; !ok {
			return nil, l.errAt(n, "canI: missing field %q", req)
		}
	}
	if e.User, err = l.str(fields["user"].val, "canI.user"); err != nil {
		return nil, err
	}
	if _, err := cluster.IdentityOf(e.User); err != nil {
		return nil, l.errAt(fields["user"].val, "canI.user: unknown user %q (use admin, student, system:kube-scheduler or system:node:<node>)", e.User)
	}
	if e.Verb, err = l.str(fields["verb"].val, "canI.verb"); err != nil {
		return nil, err
	}
	if e.Resource, err = l.str(fields["resource"].val, "canI.resource"); err != nil {
		return nil, err
	}
	if f, ok := fields["name"]; ok {
		if e.Name, err = l.str(f.val, "canI.name"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["namespace"]; ok {
		if e.Namespace, err = l.str(f.val, "canI.namespace"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["allowed"]; ok {
		if e.Allowed, err = l.boolean(f.val, "canI.allowed"); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// probe sends the review as the user and compares its answer.
func (e *CanIExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	cs, err := p.reviewClient(e.User)
	if err != nil {
		return err.Error(), false, nil
	}
	review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, e.review(), metav1.CreateOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	if review.Status.Allowed == e.Allowed {
		return "", true, nil
	}
	got := "allowed"
	if !review.Status.Allowed {
		got = "not allowed"
	}
	if review.Status.Reason != "" {
		got += " (" + review.Status.Reason + ")"
	}
	return got, false, nil
}

// review is the SelfSubjectAccessReview kubectl auth can-i sends:
// Resource is resource[.group][/subresource].
func (e *CanIExpectation) review() *authorizationv1.SelfSubjectAccessReview {
	resource, sub, _ := strings.Cut(e.Resource, "/")
	group := ""
	if r, g, ok := strings.Cut(resource, "."); ok {
		resource, group = r, g
	}
	return &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: e.Namespace, Verb: e.Verb, Group: group, Resource: resource, Subresource: sub, Name: e.Name,
		}},
	}
}
