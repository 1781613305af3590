package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubesim/kubesim/internal/flow"
)

// The facts of pods' moments (pod_moments.go), for pods a controller
// makes, whose names a scenario may not know: which pod of a selector
// had a moment first, and who wrote a moment.

// validPodValue accepts a pod name.
func validPodValue(v string) bool { return len(validation.IsDNS1123Subdomain(v)) == 0 }

// validUserValue accepts a user name: not empty, no spaces.
func validUserValue(v string) bool { return v != "" && !strings.ContainsAny(v, " \t\n") }

// momentsFact names the pods (Selector in Namespace) and the moment a
// fact is about.
type momentsFact struct {
	Selector  labels.Selector
	Namespace string
	Moment    string
}

// momentsFact reads the fields the moment facts share from the question
// d (read from n): selector and moment, required, and namespace.
func (d *questionDoc) momentsFact(n *yaml.Node) (momentsFact, error) {
	sel, err := podsSelector(n, d.Selector)
	if err != nil {
		return momentsFact{}, err
	}
	f := momentsFact{Namespace: DefaultNamespace}
	if f.Selector, err = labels.Parse(sel); err != nil {
		return momentsFact{}, errAt(valueOf(n, "selector"), "%v", err)
	}
	if d.Moment == nil {
		return momentsFact{}, errAt(n, "missing field \"moment\" (one of %s)", joinComma(momentNames))
	}
	if f.Moment, err = d.Moment.oneOf(valueOf(n, "moment"), "", momentNames); err != nil {
		return momentsFact{}, err
	}
	if d.Namespace != nil {
		f.Namespace = string(*d.Namespace)
	}
	return f, nil
}

// moments returns the run's moments f is about, in revision order, and
// a channel closed when more events arrive.
func (f momentsFact) moments(p *player) ([]podMoment, <-chan struct{}) {
	events, changed := p.snapshot()
	ms := selectMoments(podMoments(events, f.Namespace), f.Selector)
	return slices.DeleteFunc(ms, func(m podMoment) bool { return m.Moment != f.Moment }), changed
}

// firstPodFact is the pod of Selector whose Moment came first in this
// run (the lowest etcd revision).
type firstPodFact struct{ momentsFact }

func parseFirstPodFact(d *questionDoc, n *yaml.Node) (fact, error) {
	f, err := d.momentsFact(n)
	return firstPodFact{f}, err
}

func (f firstPodFact) about() flow.Text {
	return flow.Text{En: fmt.Sprintf("pod of %s %s first", f.Selector, f.Moment),
		Zh: fmt.Sprintf("%s 的 Pod 中最先 %s 的那个", f.Selector, f.Moment)}
}

func (f firstPodFact) look(_ context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	ms, changed := f.moments(p)
	if len(ms) == 0 {
		return "no pod " + f.Moment + " yet", false, changed
	}
	return ms[0].Pod, true, nil
}

// momentByFact is the user whose request wrote the first Moment of a pod
// of Selector (bound to Node, if given) in this run.
type momentByFact struct {
	momentsFact
	Node string
}

func parseMomentByFact(d *questionDoc, n *yaml.Node) (fact, error) {
	f, err := d.momentsFact(n)
	mf := momentByFact{momentsFact: f}
	if d.Node != nil {
		mf.Node = string(*d.Node)
	}
	return mf, err
}

func (f momentByFact) about() flow.Text {
	on, zhOn := "", ""
	if f.Node != "" {
		on, zhOn = " on "+f.Node, "在 "+f.Node+" 上"
	}
	return flow.Text{En: fmt.Sprintf("writer of the first %s pod of %s%s", f.Moment, f.Selector, on),
		Zh: fmt.Sprintf("%s 的 Pod %s第一次 %s 的写入者", f.Selector, zhOn, f.Moment)}
}

func (f momentByFact) look(_ context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	ms, changed := f.moments(p)
	for _, m := range ms {
		if f.Node != "" && m.Node != f.Node {
			continue
		}
		if m.User == "" {
			return "the API server itself", true, nil
		}
		return m.User, true, nil
	}
	return "no pod " + f.Moment + " yet", false, changed
}
