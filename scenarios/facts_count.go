package scenarios

import (
	"context"
	"fmt"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesim/kubesim/internal/flow"
)

// countFact is how many objects of Kind (one of the built-in kinds
// scenarios name) in Namespace match Selector, read from the API after
// the step: what kubectl get KIND -l SELECTOR counts, objects being
// deleted (Terminating) included.
type countFact struct {
	Kind, Namespace, Selector string
}

func parseCountFact(d *questionDoc, n *yaml.Node) (fact, error) {
	if d.Kind == nil {
		return nil, errAt(n, "missing field \"kind\"")
	}
	f := countFact{Kind: string(*d.Kind)}
	info, ok := kinds[f.Kind]
	switch {
	case !ok:
		return nil, errAt(valueOf(n, "kind"), "unknown kind %q (a built-in kind: %s)", f.Kind, joinComma(kindNames))
	case d.Namespace != nil && !info.namespaced:
		return nil, errAt(valueOf(n, "namespace"), "%s is not namespaced", f.Kind)
	case d.Namespace != nil:
		f.Namespace = string(*d.Namespace)
	case info.namespaced:
		f.Namespace = DefaultNamespace
	}
	if d.Selector != nil {
		f.Selector = string(*d.Selector)
		if _, err := labels.Parse(f.Selector); err != nil {
			return nil, errAt(valueOf(n, "selector"), "%v", err)
		}
	}
	return f, nil
}

func (f countFact) about() flow.Text {
	where, zhWhere := "", ""
	if f.Namespace != "" {
		where, zhWhere = " in "+f.Namespace, "命名空间 "+f.Namespace+" 里"
	}
	if f.Selector != "" {
		where += " with " + f.Selector
		zhWhere += "带 " + f.Selector + " 的"
	}
	return flow.Text{En: fmt.Sprintf("number of %ss%s", f.Kind, where), Zh: fmt.Sprintf("%s %s 的个数", zhWhere, f.Kind)}
}

func (f countFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	_, changed := p.snapshot()
	ri, err := p.resource(ObjectSpec{Kind: f.Kind, Namespace: f.Namespace}, expectUser)
	if err != nil {
		return err.Error(), false, nil
	}
	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: f.Selector})
	if err != nil {
		return errString(err), false, changed
	}
	return strconv.Itoa(len(list.Items)), true, nil
}
