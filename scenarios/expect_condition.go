package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ConditionExpectation: the object's status lists a condition of Type
// with Status (True, False or Unknown), and, if Reason is set, that
// reason; what kubectl wait --for=condition=Type waits for.
type ConditionExpectation struct {
	Object               ObjectSpec
	Type, Status, Reason string
}

var _ prober = (*ConditionExpectation)(nil)

// conditionDoc is condition as written.
type conditionDoc struct {
	objectDoc `yaml:",inline"`
	Type      str  `yaml:"type" load:"required"`
	Status    *str `yaml:"status"`
	Reason    *str `yaml:"reason"`
}

func (e *ConditionExpectation) Kind() string { return "condition" }
func (e *ConditionExpectation) String() string {
	s := fmt.Sprintf("%s condition %s=%s", e.Object, e.Type, e.Status)
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// parseCondition reads {kind, name, namespace, type, status, reason};
// status defaults to True.
func parseCondition(l *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[conditionDoc](n)
	if err != nil {
		return nil, err
	}
	e := &ConditionExpectation{Type: string(d.Type), Reason: d.Reason.or("")}
	if e.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if e.Status, err = d.Status.oneOf(valueOf(n, "status"), "True", []string{"True", "False", "Unknown"}); err != nil {
		return nil, err
	}
	return e, nil
}

// probe reads the object's status.conditions from the API.
func (e *ConditionExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	ri, err := p.resource(e.Object, expectUser)
	if err != nil {
		return err.Error(), false, nil
	}
	obj, err := ri.Get(ctx, e.Object.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != e.Type {
			continue
		}
		status, reason := fmt.Sprint(m["status"]), fmt.Sprint(m["reason"])
		if status == e.Status && (e.Reason == "" || reason == e.Reason) {
			message, _ := m["message"].(string)
			r, _ := m["reason"].(string)
			p.saw(conditionShown(e.Object.String(), e.Type, status, r, message))
			return "", true, nil
		}
		return fmt.Sprintf("%s=%s (%s): %v", e.Type, status, reason, m["message"]), false, nil
	}
	return "no " + e.Type + " condition", false, nil
}
