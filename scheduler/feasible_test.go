package scheduler

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// A search that wraps from the last node to the first still gives its
// verdicts, and the tied nodes, in name order: the third search over
// 1,000 nodes looks at n0840…n0999 and then n0000…n0259.
func TestFeasibleSearchWraps(t *testing.T) {
	var nodes []*corev1.Node
	for i := range 1000 {
		nodes = append(nodes, makeNode(fmt.Sprintf("n%04d", i), "64", "256Gi", 110))
	}
	m := newMemScheduler(t, nodes...)
	for _, name := range []string{"p1", "p2", "p3"} {
		m.queue.Add(makePod(name, withRequests("8", "32Gi")))
		m.scheduleNext(t)
	}
	d := m.lastEvent(t).Scheduling
	if len(d.Nodes) != 420 {
		t.Fatalf("looked at %d nodes, want 420", len(d.Nodes))
	}
	if !slices.IsSortedFunc(d.Nodes, func(a, b flow.NodeVerdict) int { return strings.Compare(a.Node, b.Node) }) {
		t.Errorf("verdicts not in name order: %s … %s", d.Nodes[0].Node, d.Nodes[len(d.Nodes)-1].Node)
	}
	if d.Nodes[0].Node != "n0000" || d.Nodes[259].Node != "n0259" || d.Nodes[260].Node != "n0840" {
		t.Errorf("verdicts start %s, %s, %s; want n0000, n0259 (wrapped part) then n0840", d.Nodes[0].Node, d.Nodes[259].Node, d.Nodes[260].Node)
	}
	// n0000 has p1 and scores lower; the others tie, and FirstByName
	// takes the first of them by name.
	if got := m.binder.get("p3"); got != "n0001" {
		t.Errorf("p3 bound to %q, want n0001", got)
	}
	if len(d.Tied) != 419 || !slices.IsSorted(d.Tied) || d.Tied[0] != "n0001" {
		t.Errorf("%d tied nodes starting %v, want 419 in name order from n0001", len(d.Tied), d.Tied[:min(3, len(d.Tied))])
	}
}

// Filtering and scoring on several workers gives the verdicts, scores and
// choices of one worker, also when some nodes are rejected.
func TestParallelSchedulingMatchesSequential(t *testing.T) {
	var nodes []*corev1.Node
	for i := range 1000 {
		cpu := "64"
		if i%3 == 0 {
			cpu = "1" // too small for the pods: rejected
		}
		nodes = append(nodes, makeNode(fmt.Sprintf("n%04d", i), cpu, "256Gi", 110))
	}
	run := func(workers int) ([]string, []any) {
		m := newMemScheduler(t, nodes...)
		m.parallel = parallelizer{workers: workers}
		var bound []string
		var decisions []any
		for i := range 6 {
			name := fmt.Sprintf("p%d", i)
			m.queue.Add(makePod(name, withRequests("4", "1Gi")))
			m.scheduleNext(t)
			bound = append(bound, m.binder.get(name))
			decisions = append(decisions, *m.lastEvent(t).Scheduling)
		}
		return bound, decisions
	}
	seqBound, seqDecisions := run(1)
	parBound, parDecisions := run(4)
	if !slices.Equal(seqBound, parBound) {
		t.Errorf("bound with 4 workers to %v, with 1 to %v", parBound, seqBound)
	}
	for i := range seqDecisions {
		if !reflect.DeepEqual(seqDecisions[i], parDecisions[i]) {
			t.Errorf("pod %d: the decision with 4 workers differs from the one with 1", i)
		}
	}
}

func TestSortSearchOrder(t *testing.T) {
	for _, tt := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a", "c", "d"}, []string{"a", "c", "d"}},
		{[]string{"c", "d", "a", "b"}, []string{"a", "b", "c", "d"}},
		{[]string{"d", "a"}, []string{"a", "d"}},
		{[]string{"b", "d", "a", "c"}, []string{"a", "b", "c", "d"}}, // not a rotation: sorted anyway
	} {
		got := slices.Clone(tt.in)
		sortSearchOrder(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("sortSearchOrder(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
