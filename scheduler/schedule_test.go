package scheduler

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestScheduleEvidence checks the choice and every number the flow event
// shows. The expected scores, for a pod requesting 1 cpu and 1Gi on nodes
// of 4 cpu and 8Gi:
//
//	            TaintToleration×3  NodeResourcesFit×1  BalancedAllocation×1  total
//	a (2 cpu, 2Gi used)   100           (25+62)/2=43   50+(50+81-87)/2=72      415
//	b (empty)             100           (75+87)/2=81   50+(50+93-100)/2=71     452
//	c (PreferNoSchedule)    0                     81                   71     152
//	d (NoSchedule)        rejected by TaintToleration
//
// NodeAffinity is skipped (no preferred terms): it gives no score at all.
func TestScheduleEvidence(t *testing.T) {
	m := newMemScheduler(t,
		makeNode("a", "4", "8Gi", 110),
		makeNode("b", "4", "8Gi", 110),
		makeNode("c", "4", "8Gi", 110, withTaint("spot", "", corev1.TaintEffectPreferNoSchedule)),
		makeNode("d", "4", "8Gi", 110, withTaint("gpu", "", corev1.TaintEffectNoSchedule)),
	)
	m.cache.AddPod(makePod("busy", onNode("a"), withRequests("2", "2Gi")))
	m.queue.Add(makePod("nginx", withRequests("1", "1Gi")))
	m.scheduleNext(t)

	if got := m.binder.get("nginx"); got != "b" {
		t.Errorf("bound to %q, want b", got)
	}
	ev := m.lastEvent(t)
	scores := func(tt, fit, bal int64) []flow.PluginScore {
		return []flow.PluginScore{
			{Plugin: TaintTolerationName, Score: tt, Weight: 3},
			{Plugin: NodeResourcesFitName, Score: fit, Weight: 1},
			{Plugin: NodeResourcesBalancedAllocationName, Score: bal, Weight: 1},
		}
	}
	want := flow.Event{
		Seq:       1, // the first event recorded
		Stage:     flow.StageScheduled,
		Component: "scheduler",
		Object:    flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "nginx", UID: "uid-nginx"},
		Time:      t0,
		Summary:   "nginx → b",
		Scheduling: &flow.SchedulingDecision{
			Attempt: 1,
			Chosen:  "b",
			Nodes: []flow.NodeVerdict{
				{Node: "a", Feasible: true, Scores: scores(100, 43, 72), Total: 415},
				{Node: "b", Feasible: true, Scores: scores(100, 81, 71), Total: 452},
				{Node: "c", Feasible: true, Scores: scores(0, 81, 71), Total: 152},
				{Node: "d", FailedPlugin: TaintTolerationName, Reasons: []string{"node(s) had untolerated taint(s)"}},
			},
		},
	}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("flow event\n got: %+v\nwant: %+v", describe(ev), describe(want))
	}
}

func describe(e flow.Event) string {
	s := fmt.Sprintf("%+v", e)
	if e.Scheduling != nil {
		s += fmt.Sprintf(" scheduling=%+v", *e.Scheduling)
	}
	return s
}

func TestScheduleSingleFeasibleNodeIsNotScored(t *testing.T) {
	m := newMemScheduler(t, makeNode("a", "4", "8Gi", 110), makeNode("b", "1", "8Gi", 110))
	m.queue.Add(makePod("p", withRequests("2", "")))
	m.scheduleNext(t)
	if got := m.binder.get("p"); got != "a" {
		t.Fatalf("bound to %q, want a", got)
	}
	ev := m.lastEvent(t)
	want := []flow.NodeVerdict{
		{Node: "a", Feasible: true},
		{Node: "b", FailedPlugin: NodeResourcesFitName, Reasons: []string{"Insufficient cpu"}},
	}
	if !reflect.DeepEqual(ev.Scheduling.Nodes, want) {
		t.Errorf("verdicts = %+v, want %+v", ev.Scheduling.Nodes, want)
	}
}

func TestScheduleNodeAffinityScores(t *testing.T) {
	m := newMemScheduler(t, makeNode("a", "4", "8Gi", 110), makeNode("b", "4", "8Gi", 110, withLabel("zone", "east")))
	m.queue.Add(makePod("p", withPreferred(10, term(expr("zone", corev1.NodeSelectorOpIn, "east")))))
	m.scheduleNext(t)
	if got := m.binder.get("p"); got != "b" {
		t.Errorf("bound to %q, want b (preferred zone)", got)
	}
	ev := m.lastEvent(t)
	var plugins []string
	for _, s := range ev.Scheduling.Nodes[1].Scores {
		plugins = append(plugins, fmt.Sprintf("%s=%d×%d", s.Plugin, s.Score, s.Weight))
	}
	// Best-effort pod: BalancedAllocation skipped; NodeAffinity gives b
	// the full 100; the pod counts as 100m and 200Mi: (4000-100)/4000
	// and (8Gi-200Mi)/8Gi are both 97%.
	want := []string{"TaintToleration=100×3", "NodeAffinity=100×2", "NodeResourcesFit=97×1"}
	if !slices.Equal(plugins, want) {
		t.Errorf("scores of b = %v, want %v", plugins, want)
	}
}

func TestTieBreakers(t *testing.T) {
	names := []string{"a", "b", "c"}
	if got := FirstByName(names); got != "a" {
		t.Errorf("FirstByName = %q, want a", got)
	}
	seen := map[string]bool{}
	tb := NewRandomTieBreaker(1)
	for range 100 {
		seen[tb(names)] = true
	}
	if len(seen) != 3 {
		t.Errorf("random tie breaker picked %v in 100 draws, want all three", seen)
	}
	a, b := NewRandomTieBreaker(7), NewRandomTieBreaker(7)
	for i := range 20 {
		if x, y := a(names), b(names); x != y {
			t.Fatalf("draw %d: same seed gave %q and %q", i, x, y)
		}
	}

	// Equal nodes: FirstByName always takes the first.
	m := newMemScheduler(t, makeNode("b", "4", "8Gi", 110), makeNode("a", "4", "8Gi", 110))
	m.queue.Add(makePod("p"))
	m.scheduleNext(t)
	if got := m.binder.get("p"); got != "a" {
		t.Errorf("tie between equal nodes went to %q, want a", got)
	}
	if ev := m.lastEvent(t); !slices.Equal(ev.Scheduling.Tied, []string{"a", "b"}) || ev.Scheduling.Chosen != "a" {
		t.Errorf("decision tied %v chosen %q, want the candidates [a b] and a", ev.Scheduling.Tied, ev.Scheduling.Chosen)
	}
	// A clear winner: no tie to show.
	m = newMemScheduler(t, makeNode("big", "8", "16Gi", 110), makeNode("small", "4", "8Gi", 110))
	m.queue.Add(makePod("q", withRequests("1", "1Gi")))
	m.scheduleNext(t)
	if ev := m.lastEvent(t); ev.Scheduling.Tied != nil || ev.Scheduling.Chosen != "big" {
		t.Errorf("decision tied %v chosen %q, want no tie and big", ev.Scheduling.Tied, ev.Scheduling.Chosen)
	}
}

// TestAssumedPodsTakeRoom: two pods that each fit one node but not both
// together are never placed on the same node, even while the first one's
// binding is still under way and no informer has reported it.
func TestAssumedPodsTakeRoom(t *testing.T) {
	m := newMemScheduler(t, makeNode("a", "1", "8Gi", 110), makeNode("b", "1", "8Gi", 110))
	release := make(chan struct{})
	started := make(chan string, 2)
	m.binder.onBind = func(pod *corev1.Pod, _ string) {
		started <- pod.Name
		<-release
	}
	m.queue.Add(makePod("p1", withRequests("1", "")))
	m.queue.Add(makePod("p2", withRequests("1", "")))
	m.queue.Add(makePod("p3", withRequests("1", "")))
	ctx := context.Background()
	for range 3 {
		qp, _ := m.queue.Pop()
		m.scheduleOne(ctx, qp)
	}
	// p1 and p2 are being bound, nothing is confirmed; p3 found no room.
	got := []string{<-started, <-started}
	slices.Sort(got)
	if want := []string{"p1", "p2"}; !slices.Equal(got, want) {
		t.Errorf("bindings started for %v, want %v", got, want)
	}
	close(release)
	m.apiWG.Wait()
	if a, b := m.binder.get("p1"), m.binder.get("p2"); a == b {
		t.Errorf("p1 and p2 both went to %q with room for one", a)
	}
	if got := m.binder.get("p3"); got != "" {
		t.Errorf("p3 bound to %q, want nowhere", got)
	}
	if got := m.queue.contents().Unschedulable; !slices.Equal(got, []string{"p3"}) {
		t.Errorf("unschedulable = %v, want [p3]", got)
	}
}

func TestBindingFailures(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, "p", errors.New("pod p is already assigned to node \"x\""))
	tests := []struct {
		name        string
		err         error
		wantQueue   queueContents
		wantSummary string
	}{
		{"conflict: someone else bound it", conflict, queueContents{}, "p: binding to a rejected"},
		{"other error: retried", apierrors.NewInternalError(errors.New("etcd is down")), queueContents{Backoff: []string{"p"}},
			"p: binding pod to node a: Internal error occurred: etcd is down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemScheduler(t, makeNode("a", "1", "8Gi", 110))
			m.queue.Add(makePod("waiting", withRequests("1", "")))
			m.scheduleNext(t) // takes the node
			m.queue.Add(makePod("p", withRequests("500m", "")))
			m.scheduleNext(t) // no room
			if got := m.queue.contents().Unschedulable; !slices.Equal(got, []string{"p"}) {
				t.Fatalf("unschedulable = %v, want [p]", got)
			}

			// "waiting" leaves; p gets the node but its binding fails.
			m.cache.RemovePod(makePod("waiting", onNode("a"), withRequests("1", "")))
			m.queue.Move(ClusterEvent{Resource: AssignedPod, ActionType: ActionDelete}, nil)
			m.clock.Step(DefaultMaxBackoff)
			m.queue.flushBackoffCompleted()
			m.binder.err = tt.err
			m.scheduleNext(t)

			if m.cache.HasPod("uid-p") {
				t.Errorf("the failed pod is still assumed")
			}
			if got := m.queue.contents(); !equalContents(got, tt.wantQueue) {
				t.Errorf("queue = %+v, want %+v", got, tt.wantQueue)
			}
			ev := m.lastEvent(t)
			if ev.Summary != tt.wantSummary || ev.Scheduling.Chosen != "" {
				t.Errorf("flow event summary %q chosen %q, want %q and none", ev.Summary, ev.Scheduling.Chosen, tt.wantSummary)
			}
		})
	}
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	for _, tt := range []struct{ nodes, want int }{
		{1, 1}, {99, 99}, {100, 100}, {200, 100}, {1000, 420}, {5000, 500}, {6000, 300}, {10000, 500},
	} {
		if got := numFeasibleNodesToFind(tt.nodes); got != tt.want {
			t.Errorf("numFeasibleNodesToFind(%d) = %d, want %d", tt.nodes, got, tt.want)
		}
	}
}

// In a large cluster each search starts where the last one stopped, so
// that every node gets looked at in turn.
func TestFeasibleSearchRotates(t *testing.T) {
	var nodes []*corev1.Node
	for i := range 1000 {
		nodes = append(nodes, makeNode(fmt.Sprintf("n%04d", i), "64", "256Gi", 110))
	}
	m := newMemScheduler(t, nodes...)
	m.queue.Add(makePod("p1"))
	m.queue.Add(makePod("p2"))
	m.scheduleNext(t)
	first := m.lastEvent(t).Scheduling.Nodes
	m.scheduleNext(t)
	second := m.lastEvent(t).Scheduling.Nodes
	if len(first) != 420 || len(second) != 420 {
		t.Fatalf("looked at %d and %d nodes, want 420 each", len(first), len(second))
	}
	if first[0].Node != "n0000" || second[0].Node != "n0420" {
		t.Errorf("searches started at %s and %s, want n0000 and n0420", first[0].Node, second[0].Node)
	}
}
