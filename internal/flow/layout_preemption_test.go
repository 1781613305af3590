package flow

import (
	"strings"
	"testing"
)

// TestLayoutPreemption: the node chosen for preemption, the rule that
// chose it, and each candidate's victims, in both forms.
func TestLayoutPreemption(t *testing.T) {
	d := &SchedulingDecision{Attempt: 1, Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node node-2, preempting 1 victims",
		Nodes: []NodeVerdict{{Node: "node-1", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}},
			{Node: "node-2", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}}},
		Preemption: &PreemptionVerdict{Node: "node-2", Rule: "lowest highest-priority victim", Candidates: []PreemptionCandidate{
			{Node: "node-1", Victims: []string{"default/a (priority 50)"}, PDBViolations: 1},
			{Node: "node-2", Victims: []string{"default/b (priority 10)"}},
		}}}
	for _, form := range []Form{Brief, Full} {
		got := strings.Join(texts(Layout{Form: form}.Event(Event{Scheduling: d}, Context{})), "\n")
		for _, want := range []string{
			"preemption: evicting lower-priority pods on node-2 (lowest highest-priority victim); the pod is nominated to it",
			"  node-1: victims default/a (priority 50) (1 against a PodDisruptionBudget)",
			"* node-2: victims default/b (priority 10)",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("form %v: no %q in\n%s", form, want, got)
			}
		}
	}
}
