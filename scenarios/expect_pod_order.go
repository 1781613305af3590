package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
)

// PodOrderExpectation: each of Order's moments of a pod in Namespace
// happened in this run, and their etcd revisions rise in the order listed:
// each moment was written after the one before it. A moment is the first
// write of its kind to the pod (see pod_moments.go): created, bound,
// ready (phase Running and Ready True), terminating (deletionTimestamp
// set), deleted. It is how a lesson shows that a StatefulSet made mysql-1
// only after mysql-0 was Running and Ready.
type PodOrderExpectation struct {
	Namespace string
	Order     []podMomentRef
}

// podMomentRef names one moment of one pod: "mysql-0 ready".
type podMomentRef struct{ Pod, Moment string }

func (r podMomentRef) String() string { return r.Pod + " " + r.Moment }

var _ prober = (*PodOrderExpectation)(nil)

// podOrderDoc is podOrder as written.
type podOrderDoc struct {
	Namespace *objectName `yaml:"namespace"`
	Order     []str       `yaml:"order" load:"required"`
}

// Kind returns "podOrder".
func (e *PodOrderExpectation) Kind() string { return "podOrder" }

// String lists the moments in the order asked.
func (e *PodOrderExpectation) String() string {
	refs := make([]string, len(e.Order))
	for i, r := range e.Order {
		refs[i] = r.String()
	}
	return "pod moments in this order: " + strings.Join(refs, ", ")
}

// parsePodOrder reads {namespace, order}: order lists at least two
// moments, each "POD MOMENT" with MOMENT one of momentNames.
func parsePodOrder(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[podOrderDoc](n)
	if err != nil {
		return nil, err
	}
	e := &PodOrderExpectation{Namespace: DefaultNamespace}
	if d.Namespace != nil {
		e.Namespace = string(*d.Namespace)
	}
	if len(d.Order) < 2 {
		return nil, errAt(valueOf(n, "order"), "order needs at least two moments (\"mysql-0 ready\", \"mysql-1 created\")")
	}
	for i, s := range d.Order {
		pod, m, _ := strings.Cut(string(s), " ")
		if len(validation.IsDNS1123Subdomain(pod)) > 0 || !slices.Contains(momentNames, m) {
			return nil, errAt(valueOf(n, "order").Content[i], "%q is not \"POD MOMENT\" with MOMENT one of %s", s, joinComma(momentNames))
		}
		e.Order = append(e.Order, podMomentRef{Pod: pod, Moment: m})
	}
	return e, nil
}

// probe reads the moments from the run's flow events: each must be
// there, at a revision above the one before it.
func (e *PodOrderExpectation) probe(_ context.Context, p *player) (string, bool, <-chan struct{}) {
	events, changed := p.snapshot()
	ms := podMoments(events, e.Namespace)
	var seen []string
	var prev podMoment
	for i, r := range e.Order {
		m, ok := momentOf(ms, r.Pod, r.Moment)
		if !ok {
			seen = append(seen, r.String()+" not yet")
			return strings.Join(seen, ", "), false, changed
		}
		seen = append(seen, fmt.Sprintf("%s at revision %d", r, m.Revision))
		if i > 0 && m.Revision <= prev.Revision {
			return strings.Join(seen, ", ") + fmt.Sprintf(": not after %s %s", prev.Pod, prev.Moment), false, changed
		}
		prev = m
	}
	return "", true, nil
}
