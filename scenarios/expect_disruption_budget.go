package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DisruptionBudgetExpectation: the PodDisruptionBudget's status, as the
// disruption controller wrote it for the budget's current generation
// (status.observedGeneration ≥ metadata.generation), has every figure
// given: Allowed status.disruptionsAllowed (kubectl get pdb's ALLOWED
// DISRUPTIONS), CurrentHealthy, DesiredHealthy and ExpectedPods those of
// status. Narration that quotes them states them here.
type DisruptionBudgetExpectation struct {
	Budget                                  ObjectSpec
	Allowed, CurrentHealthy, DesiredHealthy *int64
	ExpectedPods                            *int64
}

var _ prober = (*DisruptionBudgetExpectation)(nil)

// disruptionBudgetDoc is disruptionBudget as written.
type disruptionBudgetDoc struct {
	Name           objectName  `yaml:"name" load:"required"`
	Namespace      *objectName `yaml:"namespace"`
	Allowed        *count      `yaml:"allowed"`
	CurrentHealthy *count      `yaml:"currentHealthy"`
	DesiredHealthy *count      `yaml:"desiredHealthy"`
	ExpectedPods   *count      `yaml:"expectedPods"`
}

// Kind returns "disruptionBudget".
func (e *DisruptionBudgetExpectation) Kind() string { return "disruptionBudget" }

// String names the budget and the figures asked for.
func (e *DisruptionBudgetExpectation) String() string {
	return "PodDisruptionBudget " + nsName(e.Budget.Namespace, e.Budget.Name) + " " + strings.Join(wantedFigures(e.figures()), ", ")
}

// figures pairs each field name with its value in e.
func (e *DisruptionBudgetExpectation) figures() []figure {
	return []figure{{"allowed", e.Allowed}, {"currentHealthy", e.CurrentHealthy},
		{"desiredHealthy", e.DesiredHealthy}, {"expectedPods", e.ExpectedPods}}
}

// parseDisruptionBudget reads {name, namespace, allowed, currentHealthy,
// desiredHealthy, expectedPods}; at least one figure.
func parseDisruptionBudget(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	var d disruptionBudgetDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	e := &DisruptionBudgetExpectation{Budget: ObjectSpec{Kind: "PodDisruptionBudget", Name: string(d.Name), Namespace: DefaultNamespace},
		Allowed: int64Of(d.Allowed), CurrentHealthy: int64Of(d.CurrentHealthy), DesiredHealthy: int64Of(d.DesiredHealthy), ExpectedPods: int64Of(d.ExpectedPods)}
	if d.Namespace != nil {
		e.Budget.Namespace = string(*d.Namespace)
	}
	if d.Allowed == nil && d.CurrentHealthy == nil && d.DesiredHealthy == nil && d.ExpectedPods == nil {
		return nil, errAt(n, "give at least one of allowed, currentHealthy, desiredHealthy, expectedPods")
	}
	return e, nil
}

// probe reads the budget.
func (e *DisruptionBudgetExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	pdb, err := p.admin.PolicyV1().PodDisruptionBudgets(e.Budget.Namespace).Get(ctx, e.Budget.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	s := pdb.Status
	got := map[string]int64{"allowed": int64(s.DisruptionsAllowed), "currentHealthy": int64(s.CurrentHealthy),
		"desiredHealthy": int64(s.DesiredHealthy), "expectedPods": int64(s.ExpectedPods)}
	seen := fmt.Sprintf("allowed %d, currentHealthy %d, desiredHealthy %d, expectedPods %d",
		got["allowed"], got["currentHealthy"], got["desiredHealthy"], got["expectedPods"])
	if s.ObservedGeneration < pdb.Generation {
		return fmt.Sprintf("%s, but its status is of generation %d, not %d yet", seen, s.ObservedGeneration, pdb.Generation), false, nil
	}
	if !figuresHold(e.figures(), got) {
		return seen, false, nil
	}
	return "", true, nil
}
