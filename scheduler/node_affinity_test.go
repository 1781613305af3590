package scheduler

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestNodeAffinityTermsThatDoNotParse: a required term that does not
// parse selects no node (the learner reads the usual reason), and a
// preferred one fails the attempt with the parse error, as kube-scheduler
// does.
func TestNodeAffinityTermsThatDoNotParse(t *testing.T) {
	node := NewNodeInfo(makeNode("node-1", "4", "8Gi", 110, withLabel("cores", "8")))
	bad := term(expr("cores", corev1.NodeSelectorOpGt, "eight"))

	st := runFilter(&NodeAffinity{}, makePod("p", withRequired(bad, term(expr("cores", corev1.NodeSelectorOpExists)))), node)
	if !st.IsSuccess() {
		t.Errorf("a bad term ORed with a matching one: %v, want success", st)
	}
	st = runFilter(&NodeAffinity{}, makePod("p", withRequired(bad)), node)
	if st.Code() != UnschedulableAndUnresolvable || len(st.Reasons()) != 1 || st.Reasons()[0] != ErrReasonNodeAffinity {
		t.Errorf("only a bad required term: %v, want %q", st, ErrReasonNodeAffinity)
	}

	pod := makePod("p", withPreferred(5, bad))
	st = (&NodeAffinity{}).PreScore(context.Background(), NewCycleState(), pod, []*NodeInfo{node})
	if st.Code() != Error || !strings.Contains(st.AsError().Error(), "eight") {
		t.Errorf("a bad preferred term: %v, want an error naming the value", st)
	}
}
