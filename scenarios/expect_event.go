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

// eventKeys are the fields of event.
var eventKeys = []string{"object", "kind", "namespace", "reason", "message"}

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
func parseEvent(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, eventKeys)
	if err != nil {
		return nil, err
	}
	e := &EventExpectation{Namespace: DefaultNamespace}
	of, ok := fields["object"]
	if !ok {
		return nil, l.errAt(n, "event: missing field \"object\"")
	}
	if e.Object, err = l.objectName(of.val, "event.object"); err != nil {
		return nil, err
	}
	if f, ok := fields["kind"]; ok {
		if e.ObjectKind, err = l.str(f.val, "event.kind"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["namespace"]; ok {
		if e.Namespace, err = l.objectName(f.val, "event.namespace"); err != nil {
			return nil, err
		}
	}
	rf, ok := fields["reason"]
	if !ok {
		return nil, l.errAt(n, "event: missing field \"reason\"")
	}
	if e.Reason, err = l.str(rf.val, "event.reason"); err != nil {
		return nil, err
	}
	if f, ok := fields["message"]; ok {
		if e.Message, err = l.str(f.val, "event.message"); err != nil {
			return nil, err
		}
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
