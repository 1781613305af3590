package scenarios

import (
	"context"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AbsentExpectation: the object does not exist.
type AbsentExpectation struct{ Object ObjectSpec }

var _ prober = (*AbsentExpectation)(nil)

func (e *AbsentExpectation) Kind() string   { return "absent" }
func (e *AbsentExpectation) String() string { return e.Object.String() + " absent" }

// parseAbsent reads {kind, name, namespace}.
func parseAbsent(l *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[objectDoc](n)
	if err != nil {
		return nil, err
	}
	o, err := l.objectRef(n, d)
	if err != nil {
		return nil, err
	}
	return &AbsentExpectation{Object: o}, nil
}

// probe reads the object: a 404 is what it waits for.
func (e *AbsentExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	ri, err := p.resource(e.Object, expectUser)
	if err != nil {
		return err.Error(), false, nil
	}
	_, err = ri.Get(ctx, e.Object.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", true, nil
	}
	if err != nil {
		return errString(err), false, nil
	}
	return "it exists", false, nil
}
