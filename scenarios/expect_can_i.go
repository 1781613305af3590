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

// canIDoc is canI as written.
type canIDoc struct {
	User      str      `yaml:"user" load:"required"`
	Verb      str      `yaml:"verb" load:"required"`
	Resource  str      `yaml:"resource" load:"required"`
	Name      *str     `yaml:"name"`
	Namespace *str     `yaml:"namespace"`
	Allowed   *boolean `yaml:"allowed"`
}

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
func parseCanI(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[canIDoc](n)
	if err != nil {
		return nil, err
	}
	e := &CanIExpectation{User: string(d.User), Verb: string(d.Verb), Resource: string(d.Resource), Name: d.Name.or(""),
		Namespace: d.Namespace.or(DefaultNamespace), Allowed: d.Allowed.or(true)}
	if _, err := cluster.IdentityOf(e.User); err != nil {
		return nil, errAt(valueOf(n, "user"), "unknown user %q (use admin, student, system:kube-scheduler or system:node:<node>)", e.User)
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
