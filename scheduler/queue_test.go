package scheduler

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

func newTestQueue() (*schedulingQueue, *clocktesting.FakeClock) {
	clk := clocktesting.NewFakeClock(t0)
	return newSchedulingQueue(clk, DefaultInitialBackoff, DefaultMaxBackoff, defaultFramework(nil).events), clk
}

// mustPop pops without blocking, failing the test on an empty activeQ.
func mustPop(tb testing.TB, q *schedulingQueue) *queuedPod {
	tb.Helper()
	if len(q.contents().Active) == 0 {
		tb.Fatalf("activeQ is empty; queue: %+v", q.contents())
	}
	qp, ok := q.Pop()
	if !ok {
		tb.Fatalf("Pop: queue closed")
	}
	return qp
}

func TestQueueOrder(t *testing.T) {
	type add struct {
		pod   *corev1.Pod
		after time.Duration // clock step before adding
	}
	tests := []struct {
		name string
		adds []add
		want []string
	}{
		{"FIFO among equals", []add{{makePod("a"), 0}, {makePod("b"), 0}, {makePod("c"), 0}}, []string{"a", "b", "c"}},
		{"FIFO by time", []add{{makePod("a"), 0}, {makePod("b"), time.Second}, {makePod("c"), time.Second}}, []string{"a", "b", "c"}},
		{"higher priority first", []add{
			{makePod("low-1"), 0},
			{makePod("high-1", withPriority(1000)), time.Second},
			{makePod("low-2"), time.Second},
			{makePod("high-2", withPriority(1000)), time.Second},
			{makePod("negative", withPriority(-5)), 0},
		}, []string{"high-1", "high-2", "low-1", "low-2", "negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, clk := newTestQueue()
			for _, a := range tt.adds {
				clk.Step(a.after)
				q.Add(a.pod)
			}
			if got := q.contents().Active; !slices.Equal(got, tt.want) {
				t.Errorf("activeQ order = %v, want %v", got, tt.want)
			}
			var popped []string
			for range tt.want {
				popped = append(popped, mustPop(t, q).pod.Name)
			}
			if !slices.Equal(popped, tt.want) {
				t.Errorf("popped %v, want %v", popped, tt.want)
			}
		})
	}
}

// A pod that failed keeps the time its attempt ended: after its backoff it
// goes before pods added later with the same priority.
func TestQueueOrderAfterBackoff(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(makePod("old"))
	qp := mustPop(t, q)
	q.Requeue(qp, qp.pod, nil, true) // an error: straight to backoffQ
	clk.Step(500 * time.Millisecond)
	q.Add(makePod("new"))
	clk.Step(600 * time.Millisecond)
	q.flushBackoffCompleted()
	if got, want := q.contents().Active, []string{"old", "new"}; !slices.Equal(got, want) {
		t.Errorf("activeQ = %v, want %v", got, want)
	}
}

func TestQueueBackoffDoublesUpToMax(t *testing.T) {
	for _, kind := range []struct {
		name    string
		isError bool
	}{{"unschedulable", false}, {"error", true}} {
		t.Run(kind.name, func(t *testing.T) {
			q, clk := newTestQueue()
			q.Add(makePod("p"))
			want := []time.Duration{1, 2, 4, 8, 10, 10, 10}
			for i, w := range want {
				w *= time.Second
				qp := mustPop(t, q)
				var rejectors []string
				if !kind.isError {
					rejectors = []string{NodeResourcesFitName}
				}
				q.Requeue(qp, qp.pod, rejectors, kind.isError)
				if got := qp.backoffExpiry.Sub(qp.timestamp); got != w {
					t.Errorf("failure %d: backoff = %v, want %v", i+1, got, w)
				}
				if !kind.isError {
					// Unschedulable pods wait for a change; a node
					// arrives at once.
					if got := q.contents().Unschedulable; !slices.Equal(got, []string{"p"}) {
						t.Fatalf("failure %d: unschedulable = %v, want [p]", i+1, got)
					}
					q.Move(ClusterEvent{Resource: NodeResource, ActionType: ActionAdd}, nil)
				}
				if got := q.contents().Backoff; !slices.Equal(got, []string{"p"}) {
					t.Fatalf("failure %d: backoffQ = %v, want [p]", i+1, got)
				}
				clk.Step(w - time.Millisecond)
				q.flushBackoffCompleted()
				if got := q.contents().Active; len(got) != 0 {
					t.Fatalf("failure %d: %v before the backoff of %v ended: activeQ = %v, want empty", i+1, w-time.Millisecond, w, got)
				}
				clk.Step(time.Millisecond)
				q.flushBackoffCompleted()
				if got := q.contents().Active; !slices.Equal(got, []string{"p"}) {
					t.Fatalf("failure %d: after the backoff of %v: activeQ = %v, want [p]", i+1, w, got)
				}
			}
		})
	}
}

// An error after unschedulable attempts backs off by the error count; an
// unschedulable attempt after errors by the unschedulable count.
func TestQueueBackoffCountsByKind(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(makePod("p"))
	fail := func(isError bool) time.Duration {
		qp := mustPop(t, q)
		var rejectors []string
		if !isError {
			rejectors = []string{NodeResourcesFitName}
		}
		q.Requeue(qp, qp.pod, rejectors, isError)
		q.Move(ClusterEvent{Resource: NodeResource, ActionType: ActionAdd}, nil)
		clk.Step(time.Minute)
		q.flushBackoffCompleted()
		return qp.backoffExpiry.Sub(qp.timestamp)
	}
	for i, tc := range []struct {
		isError bool
		want    time.Duration
	}{{false, 1}, {false, 2}, {false, 4}, {true, 1}, {true, 2}, {false, 8}} {
		if got := fail(tc.isError); got != tc.want*time.Second {
			t.Errorf("failure %d (error %v): backoff %v, want %v", i+1, tc.isError, got, tc.want*time.Second)
		}
	}
}

func TestQueueMovesUnschedulable(t *testing.T) {
	var (
		nodeAdd       = ClusterEvent{Resource: NodeResource, ActionType: ActionAdd}
		nodeAlloc     = ClusterEvent{Resource: NodeResource, ActionType: ActionUpdateNodeAllocatable}
		nodeLabel     = ClusterEvent{Resource: NodeResource, ActionType: ActionUpdateNodeLabel}
		nodeTaint     = ClusterEvent{Resource: NodeResource, ActionType: ActionUpdateNodeTaint}
		podDelete     = ClusterEvent{Resource: AssignedPod, ActionType: ActionDelete}
		labelAndTaint = ClusterEvent{Resource: NodeResource, ActionType: ActionUpdateNodeLabel | ActionUpdateNodeTaint}
	)
	tests := []struct {
		name      string
		rejectors []string
		event     ClusterEvent
		wantMoved bool
	}{
		{"Fit/node added", []string{NodeResourcesFitName}, nodeAdd, true},
		{"Fit/node allocatable", []string{NodeResourcesFitName}, nodeAlloc, true},
		{"Fit/bound pod deleted", []string{NodeResourcesFitName}, podDelete, true},
		{"Fit/node labels", []string{NodeResourcesFitName}, nodeLabel, false},
		{"Fit/node taints", []string{NodeResourcesFitName}, nodeTaint, false},
		{"TaintToleration/node taints", []string{TaintTolerationName}, nodeTaint, true},
		{"TaintToleration/bound pod deleted", []string{TaintTolerationName}, podDelete, false},
		{"TaintToleration/node allocatable", []string{TaintTolerationName}, nodeAlloc, false},
		{"NodeAffinity/node labels", []string{NodeAffinityName}, nodeLabel, true},
		{"NodeAffinity/node taints", []string{NodeAffinityName}, nodeTaint, false},
		{"NodeUnschedulable/uncordoned", []string{NodeUnschedulableName}, nodeTaint, true},
		{"NodeUnschedulable/node added", []string{NodeUnschedulableName}, nodeAdd, true},
		{"NodeName/node labels", []string{NodeNameName}, nodeLabel, false},
		{"two plugins, one helped", []string{NodeAffinityName, NodeResourcesFitName}, podDelete, true},
		{"two changes, one relevant", []string{TaintTolerationName}, labelAndTaint, true},
		{"unknown rejector: any change", []string{"SomeoneElse"}, nodeLabel, true},
		{"no rejectors: any change", nil, nodeLabel, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newTestQueue()
			q.Add(makePod("p"))
			qp := mustPop(t, q)
			q.Requeue(qp, qp.pod, tt.rejectors, false)
			if got := q.contents().Unschedulable; !slices.Equal(got, []string{"p"}) {
				t.Fatalf("unschedulable = %v, want [p]", got)
			}
			q.Move(tt.event, nil)
			c := q.contents()
			moved := len(c.Unschedulable) == 0
			if moved != tt.wantMoved {
				t.Fatalf("%v moved the pod: %v, want %v (queue %+v)", tt.event, moved, tt.wantMoved, c)
			}
			if moved && !slices.Equal(c.Backoff, []string{"p"}) {
				t.Errorf("moved while backing off: backoffQ = %v, want [p]", c.Backoff)
			}
			if !moved {
				return
			}
			// Once the backoff is over, a move goes straight to activeQ.
			q2, clk2 := newTestQueue()
			q2.Add(makePod("p"))
			qp2 := mustPop(t, q2)
			q2.Requeue(qp2, qp2.pod, tt.rejectors, false)
			clk2.Step(2 * time.Second)
			q2.Move(tt.event, nil)
			if got := q2.contents().Active; !slices.Equal(got, []string{"p"}) {
				t.Errorf("moved after the backoff: activeQ = %v, want [p]", got)
			}
		})
	}
}

func TestQueueMoveSkip(t *testing.T) {
	q, _ := newTestQueue()
	for _, name := range []string{"a", "b"} {
		q.Add(makePod(name))
		qp := mustPop(t, q)
		q.Requeue(qp, qp.pod, []string{NodeResourcesFitName}, false)
	}
	q.Move(ClusterEvent{Resource: AssignedPod, ActionType: ActionDelete}, func(p *corev1.Pod) bool { return p.Name == "a" })
	c := q.contents()
	if !slices.Equal(c.Unschedulable, []string{"a"}) || !slices.Equal(c.Backoff, []string{"b"}) {
		t.Errorf("queue = %+v, want a unschedulable and b in backoffQ", c)
	}
}

// A change that arrives while the pod is being scheduled is not lost: the
// failed pod goes to backoffQ rather than waiting for another change.
func TestQueueChangeDuringAttempt(t *testing.T) {
	tests := []struct {
		name   string
		during func(q *schedulingQueue, p *corev1.Pod)
		want   queueContents
	}{
		{"nothing", func(*schedulingQueue, *corev1.Pod) {}, queueContents{Unschedulable: []string{"p"}}},
		{"node added", func(q *schedulingQueue, _ *corev1.Pod) {
			q.Move(ClusterEvent{Resource: NodeResource, ActionType: ActionAdd}, nil)
		}, queueContents{Backoff: []string{"p"}}},
		{"pod updated", func(q *schedulingQueue, p *corev1.Pod) {
			u := p.DeepCopy()
			u.Labels = map[string]string{"x": "y"}
			q.Update(u)
		}, queueContents{Backoff: []string{"p"}}},
		{"pod deleted", func(q *schedulingQueue, p *corev1.Pod) { q.Delete(p) }, queueContents{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newTestQueue()
			q.Add(makePod("p"))
			qp := mustPop(t, q)
			tt.during(q, qp.pod)
			q.Requeue(qp, qp.pod, []string{NodeResourcesFitName}, false)
			if got := q.contents(); !equalContents(got, tt.want) {
				t.Errorf("queue = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func equalContents(a, b queueContents) bool {
	return slices.Equal(a.Active, b.Active) && slices.Equal(a.Backoff, b.Backoff) &&
		slices.Equal(a.Unschedulable, b.Unschedulable) && slices.Equal(a.Gated, b.Gated)
}

func TestQueueDelete(t *testing.T) {
	q, _ := newTestQueue()
	q.Add(makePod("backoff"))
	q.Add(makePod("unsched"))
	q.Requeue(mustPop(t, q), makePod("backoff"), nil, true)
	q.Requeue(mustPop(t, q), makePod("unsched"), []string{NodeResourcesFitName}, false)
	q.Add(makePod("active"))
	want := queueContents{Active: []string{"active"}, Backoff: []string{"backoff"}, Unschedulable: []string{"unsched"}}
	if got := q.contents(); !equalContents(got, want) {
		t.Fatalf("queue = %+v, want %+v", got, want)
	}
	for _, n := range []string{"active", "backoff", "unsched"} {
		q.Delete(makePod(n))
	}
	if got := q.contents(); !equalContents(got, queueContents{}) {
		t.Errorf("after deleting everything: queue = %+v, want empty", got)
	}
}

func TestQueueUpdate(t *testing.T) {
	q, _ := newTestQueue()
	q.Add(makePod("p"))
	qp := mustPop(t, q)
	q.Requeue(qp, qp.pod, []string{TaintTolerationName}, false)

	status := qp.pod.DeepCopy()
	status.Status.Conditions = append(status.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse})
	status.ResourceVersion = "42"
	q.Update(status)
	if got := q.contents().Unschedulable; !slices.Equal(got, []string{"p"}) {
		t.Errorf("after a status-only update: unschedulable = %v, want [p]", got)
	}
	tolerating := status.DeepCopy()
	tolerating.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	q.Update(tolerating)
	if got := q.contents().Backoff; !slices.Equal(got, []string{"p"}) {
		t.Errorf("after a spec update: backoffQ = %v, want [p]", got)
	}

	// An update of a pod the queue does not know adds it.
	q.Update(makePod("stranger"))
	if got := q.contents().Active; !slices.Equal(got, []string{"stranger"}) {
		t.Errorf("after an update of an unknown pod: activeQ = %v, want [stranger]", got)
	}
}

func TestQueueGated(t *testing.T) {
	q, _ := newTestQueue()
	gated := makePod("g", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}} })
	q.Add(gated)
	if got := q.contents(); !equalContents(got, queueContents{Gated: []string{"g"}}) {
		t.Fatalf("queue = %+v, want g gated", got)
	}
	q.Move(ClusterEvent{Resource: NodeResource, ActionType: ActionAdd}, nil)
	if got := q.contents(); !equalContents(got, queueContents{Gated: []string{"g"}}) {
		t.Fatalf("after a node add: queue = %+v, want g still gated", got)
	}
	open := gated.DeepCopy()
	open.Spec.SchedulingGates = nil
	q.Update(open)
	if got := q.contents(); !equalContents(got, queueContents{Active: []string{"g"}}) {
		t.Errorf("after the gates were removed: queue = %+v, want g active", got)
	}
}

func TestQueueUnschedulableLeftover(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(makePod("p"))
	qp := mustPop(t, q)
	q.Requeue(qp, qp.pod, []string{NodeResourcesFitName}, false)
	clk.Step(maxInUnschedulable)
	q.flushUnschedulableLeftover()
	if got := q.contents().Unschedulable; !slices.Equal(got, []string{"p"}) {
		t.Fatalf("after exactly %v: unschedulable = %v, want [p]", maxInUnschedulable, got)
	}
	clk.Step(time.Second)
	q.flushUnschedulableLeftover()
	if got := q.contents().Active; !slices.Equal(got, []string{"p"}) {
		t.Errorf("after %v: activeQ = %v, want [p]", maxInUnschedulable+time.Second, got)
	}
}

func TestQueuePopWaitsAndClose(t *testing.T) {
	q, _ := newTestQueue()
	got := make(chan string)
	go func() {
		for {
			qp, ok := q.Pop()
			if !ok {
				close(got)
				return
			}
			got <- qp.pod.Name
		}
	}()
	q.Add(makePod("p"))
	if name := <-got; name != "p" {
		t.Errorf("Pop = %q, want p", name)
	}
	q.Close()
	if name, ok := <-got; ok {
		t.Errorf("Pop after Close = %q, want closed", name)
	}
}
