package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventExpectation: an Event about Object (of ObjectKind, if given) has
// Reason and a message containing Message.
type EventExpectation struct {
	Object, ObjectKind, Namespace string
	Reason, Message               string
}

var _ prober = (*EventExpectation)(nil)

// eventDoc is event as written.
type eventDoc struct {
	Object    objectName  `yaml:"object" load:"required"`
	Kind      *str        `yaml:"kind"`
	Namespace *objectName `yaml:"namespace"`
	Reason    str         `yaml:"reason" load:"required"`
	Message   *str        `yaml:"message"`
}

func (e *EventExpectation) Kind() string { return "event" }
func (e *EventExpectation) String() string {
	s := fmt.Sprintf("event %s for %s", e.Reason, nsName(e.Namespace, e.Object))
	if e.Message != "" {
		s += fmt.Sprintf(" with message containing %q", e.Message)
	}
	return s
}

// parseEvent reads {object, kind, namespace, reason, message}; object
// and reason are required.
func parseEvent(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[eventDoc](n)
	if err != nil {
		return nil, err
	}
	e := &EventExpectation{Object: string(d.Object), ObjectKind: d.Kind.or(""), Namespace: DefaultNamespace, Reason: string(d.Reason), Message: d.Message.or("")}
	if d.Namespace != nil {
		e.Namespace = string(*d.Namespace)
	}
	return e, nil
}

// probe lists the namespace's Events and looks at those about the object:
// one must have the reason and contain the message, ignoring case.
func (e *EventExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	list, err := p.admin.CoreV1().Events(e.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	var seen []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name != e.Object || (e.ObjectKind != "" && ev.InvolvedObject.Kind != e.ObjectKind) {
			continue
		}
		if ev.Reason == e.Reason && containsFold(ev.Message, e.Message) {
			return "", true, nil
		}
		seen = append(seen, fmt.Sprintf("%s %q", ev.Reason, truncate(ev.Message, 120)))
	}
	if len(seen) == 0 {
		return "no events for it", false, nil
	}
	return "events " + joinComma(seen), false, nil
}
