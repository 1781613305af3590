package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeleteAction deletes an object; with Wait it waits until it is gone.
// PropagationPolicy, if set, is the delete's propagationPolicy:
// Background, Foreground or Orphan (kubectl delete --cascade=...).
type DeleteAction struct {
	Object             ObjectSpec
	GracePeriodSeconds *int64
	PropagationPolicy  *metav1.DeletionPropagation
	Wait               bool
}

var _ actionRunner = (*DeleteAction)(nil)

// deleteDoc is delete as written.
type deleteDoc struct {
	objectDoc          `yaml:",inline"`
	GracePeriodSeconds *integer `yaml:"gracePeriodSeconds"`
	PropagationPolicy  *str     `yaml:"propagationPolicy"`
	Wait               *boolean `yaml:"wait"`
}

// propagationPolicies are the values of delete.propagationPolicy.
var propagationPolicies = []string{string(metav1.DeletePropagationBackground), string(metav1.DeletePropagationForeground), string(metav1.DeletePropagationOrphan)}

func (a *DeleteAction) Kind() string { return "delete" }
func (a *DeleteAction) String() string {
	s := "delete " + a.Object.String()
	if a.GracePeriodSeconds != nil {
		s += fmt.Sprintf(" --grace-period=%d", *a.GracePeriodSeconds)
	}
	if a.PropagationPolicy != nil {
		s += " --cascade=" + strings.ToLower(string(*a.PropagationPolicy))
	}
	if a.Wait {
		s += " --wait"
	}
	return s
}

// parseDelete reads {kind, name, namespace, gracePeriodSeconds,
// propagationPolicy, wait}.
func parseDelete(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d deleteDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &DeleteAction{Wait: d.Wait.or(false)}
	var err error
	if a.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if d.GracePeriodSeconds != nil {
		g := int64(*d.GracePeriodSeconds)
		if g < 0 {
			return nil, errAt(valueOf(n, "gracePeriodSeconds"), "%d is negative", g)
		}
		a.GracePeriodSeconds = &g
	}
	if d.PropagationPolicy != nil {
		p, err := d.PropagationPolicy.oneOf(valueOf(n, "propagationPolicy"), "", propagationPolicies)
		if err != nil {
			return nil, err
		}
		policy := metav1.DeletionPropagation(p)
		a.PropagationPolicy = &policy
	}
	return a, nil
}

// run deletes the object. Like kubectl delete it sends no precondition:
// whatever the current version, the object is deleted. With Wait it then
// reads the object every pollInterval until it is gone (or ctx ends).
func (a *DeleteAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	ri, err := p.resource(a.Object, user)
	if err != nil {
		return StepResult{}, err
	}
	err = ri.Delete(ctx, a.Object.Name, metav1.DeleteOptions{GracePeriodSeconds: a.GracePeriodSeconds, PropagationPolicy: a.PropagationPolicy})
	if err != nil || !a.Wait {
		return resultOf(err, http.StatusOK), err
	}
	for {
		_, err := ri.Get(ctx, a.Object.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return StepResult{Status: http.StatusOK, Message: a.Object.String() + " deleted"}, nil
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return StepResult{Status: http.StatusOK}, fmt.Errorf("%s still exists: %w", a.Object, err)
		}
	}
}
