package scenarios

import (
	"context"
	"fmt"
	"regexp"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventMessageExpectation: a core/v1 Event about Object (of ObjectKind,
// and with Reason, if given) has a message that is exactly Equals, or in
// which the regular expression Matches (RE2, unanchored unless it
// anchors itself with ^ and $) finds a match; one of the two is set.
// Where the event expectation asks for a reason and a part of the message
// in any case, this one checks the whole message, or its form with the
// numbers in it ("0/3 nodes are available: 2 Insufficient cpu").
type EventMessageExpectation struct {
	Object, ObjectKind, Namespace string
	Reason                        string
	Equals                        string
	Matches                       *regexp.Regexp
}

var _ prober = (*EventMessageExpectation)(nil)

// eventMessageDoc is eventMessage as written.
type eventMessageDoc struct {
	Object    objectName  `yaml:"object" load:"required"`
	Kind      *str        `yaml:"kind"`
	Namespace *objectName `yaml:"namespace"`
	Reason    *str        `yaml:"reason"`
	Equals    *str        `yaml:"equals"`
	Matches   *str        `yaml:"matches"`
}

// Kind returns "eventMessage".
func (e *EventMessageExpectation) Kind() string { return "eventMessage" }

// String says which message of which object's Events it looks for.
func (e *EventMessageExpectation) String() string {
	s := "eventMessage for " + nsName(e.Namespace, e.Object)
	if e.Reason != "" {
		s += " (reason " + e.Reason + ")"
	}
	if e.Matches != nil {
		return s + fmt.Sprintf(" matching %q", e.Matches.String())
	}
	return s + fmt.Sprintf(" equal to %q", e.Equals)
}

// parseEventMessage reads {object, kind, namespace, reason, equals,
// matches}: object and one of equals and matches are required; matches
// must compile.
func parseEventMessage(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[eventMessageDoc](n)
	if err != nil {
		return nil, err
	}
	e := &EventMessageExpectation{Object: string(d.Object), ObjectKind: d.Kind.or(""), Namespace: DefaultNamespace, Reason: d.Reason.or(""), Equals: d.Equals.or("")}
	if d.Namespace != nil {
		e.Namespace = string(*d.Namespace)
	}
	switch {
	case d.Equals != nil && d.Matches != nil:
		return nil, errAbout(n, keyOf(n, "matches"), "give equals or matches, not both")
	case d.Equals == nil && d.Matches == nil:
		return nil, errAt(n, "give equals (the whole message) or matches (a regular expression)")
	case d.Matches != nil:
		if e.Matches, err = regexp.Compile(string(*d.Matches)); err != nil {
			return nil, errAt(valueOf(n, "matches"), "%v", err)
		}
	}
	return e, nil
}

// probe lists the namespace's Events and looks at those about the object
// (with the reason, if given) for a message that is Equals or that
// Matches.
func (e *EventMessageExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	list, err := p.admin.CoreV1().Events(e.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	var seen []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name != e.Object || (e.ObjectKind != "" && ev.InvolvedObject.Kind != e.ObjectKind) ||
			(e.Reason != "" && ev.Reason != e.Reason) {
			continue
		}
		if (e.Matches != nil && e.Matches.MatchString(ev.Message)) || (e.Matches == nil && ev.Message == e.Equals) {
			return "", true, nil
		}
		seen = append(seen, fmt.Sprintf("%s %q", ev.Reason, truncate(ev.Message, 300)))
	}
	if len(seen) == 0 {
		return "no events for it", false, nil
	}
	return "events " + joinComma(seen), false, nil
}
