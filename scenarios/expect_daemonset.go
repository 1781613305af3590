package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DaemonSetExpectation: the DaemonSet's status is of its current
// generation (status.observedGeneration ≥ metadata.generation) and has
// every figure given: the columns of kubectl get daemonset and the nodes
// that run a pod they should not. A nil figure is not checked.
type DaemonSetExpectation struct {
	DaemonSet ObjectSpec
	// Desired is status.desiredNumberScheduled (the nodes that should run
	// a pod), Current currentNumberScheduled (those of them that do),
	// Ready numberReady, UpToDate updatedNumberScheduled, Available
	// numberAvailable and Misscheduled numberMisscheduled (nodes that run
	// a pod and should not).
	Desired, Current, Ready, UpToDate, Available, Misscheduled *int64
}

var _ prober = (*DaemonSetExpectation)(nil)

// daemonSetExpectDoc is daemonSet as written.
type daemonSetExpectDoc struct {
	Name         objectName  `yaml:"name" load:"required"`
	Namespace    *objectName `yaml:"namespace"`
	Desired      *count      `yaml:"desired"`
	Current      *count      `yaml:"current"`
	Ready        *count      `yaml:"ready"`
	UpToDate     *count      `yaml:"upToDate"`
	Available    *count      `yaml:"available"`
	Misscheduled *count      `yaml:"misscheduled"`
}

// Kind returns "daemonSet".
func (e *DaemonSetExpectation) Kind() string { return "daemonSet" }

// String lists the figures it expects.
func (e *DaemonSetExpectation) String() string {
	return fmt.Sprintf("daemonset %s with %s", nsName(e.DaemonSet.Namespace, e.DaemonSet.Name), joinComma(e.wanted()))
}

// figures pairs each field name with its value in e, in the order of
// kubectl get daemonset's columns.
func (e *DaemonSetExpectation) figures() []figure {
	return []figure{{"desired", e.Desired}, {"current", e.Current}, {"ready", e.Ready}, {"upToDate", e.UpToDate},
		{"available", e.Available}, {"misscheduled", e.Misscheduled}}
}

// wanted lists the figures given, "ready 3".
func (e *DaemonSetExpectation) wanted() []string { return wantedFigures(e.figures()) }

// parseDaemonSetExpectation reads {name, namespace, desired, current,
// ready, upToDate, available, misscheduled}: name and at least one
// figure are required; figures are 0 or more.
func parseDaemonSetExpectation(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[daemonSetExpectDoc](n)
	if err != nil {
		return nil, err
	}
	e := &DaemonSetExpectation{DaemonSet: ObjectSpec{Kind: "DaemonSet", Name: string(d.Name), Namespace: DefaultNamespace},
		Desired: int64Of(d.Desired), Current: int64Of(d.Current), Ready: int64Of(d.Ready), UpToDate: int64Of(d.UpToDate),
		Available: int64Of(d.Available), Misscheduled: int64Of(d.Misscheduled)}
	if d.Namespace != nil {
		e.DaemonSet.Namespace = string(*d.Namespace)
	}
	if len(e.wanted()) == 0 {
		return nil, errAt(n, "give at least one of %s", strings.Join(docKeys[daemonSetExpectDoc]()[2:], ", "))
	}
	return e, nil
}

// probe reads the DaemonSet.
func (e *DaemonSetExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	ds, err := p.admin.AppsV1().DaemonSets(e.DaemonSet.Namespace).Get(ctx, e.DaemonSet.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	got := daemonSetFigures(ds)
	seen := fmt.Sprintf("desired %d, current %d, ready %d, upToDate %d, available %d, misscheduled %d",
		got["desired"], got["current"], got["ready"], got["upToDate"], got["available"], got["misscheduled"])
	if ds.Status.ObservedGeneration < ds.Generation {
		return fmt.Sprintf("%s, but its status is of generation %d, not %d yet", seen, ds.Status.ObservedGeneration, ds.Generation), false, nil
	}
	if !figuresHold(e.figures(), got) {
		return seen, false, nil
	}
	return "", true, nil
}

// daemonSetFigures are the figures of ds the expectation compares, by
// field name.
func daemonSetFigures(ds *appsv1.DaemonSet) map[string]int64 {
	s := ds.Status
	return map[string]int64{"desired": int64(s.DesiredNumberScheduled), "current": int64(s.CurrentNumberScheduled),
		"ready": int64(s.NumberReady), "upToDate": int64(s.UpdatedNumberScheduled), "available": int64(s.NumberAvailable),
		"misscheduled": int64(s.NumberMisscheduled)}
}
