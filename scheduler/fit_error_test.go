package scheduler

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestFitErrorMessage(t *testing.T) {
	unresolvable := func(r ...string) *Status { return NewStatus(UnschedulableAndUnresolvable, r...) }
	tests := []struct {
		name string
		fe   FitError
		want string
	}{
		{
			name: "count per reason, sorted",
			fe: FitError{NumAllNodes: 3, NodeStatuses: map[string]*Status{
				"cp":     unresolvable("node(s) had untolerated taint(s)"),
				"node-1": NewStatus(Unschedulable, "Insufficient cpu"),
				"node-2": NewStatus(Unschedulable, "Insufficient cpu"),
			}, PostFilterMsg: "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."},
			want: "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name: "every reason of a node counts",
			fe: FitError{NumAllNodes: 1, NodeStatuses: map[string]*Status{
				"n": NewStatus(Unschedulable, "Too many pods", "Insufficient cpu", "Insufficient memory"),
			}},
			want: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods.",
		},
		{
			name: "sorted as strings: 10 before 2",
			fe: func() FitError {
				fe := FitError{NumAllNodes: 12, NodeStatuses: map[string]*Status{}}
				for i := range 10 {
					fe.NodeStatuses[string(rune('a'+i))] = NewStatus(Unschedulable, "Insufficient memory")
				}
				fe.NodeStatuses["y"] = unresolvable("node(s) were unschedulable")
				fe.NodeStatuses["z"] = unresolvable("node(s) were unschedulable")
				return fe
			}(),
			want: "0/12 nodes are available: 10 Insufficient memory, 2 node(s) were unschedulable.",
		},
		{
			name: "absent nodes take the absent status",
			fe: FitError{NumAllNodes: 5, NodeStatuses: map[string]*Status{"a": NewStatus(Unschedulable, "No preemption victims found for incoming pod")},
				AbsentStatus: unresolvable("Preemption is not helpful for scheduling")},
			want: "0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.",
		},
		{
			name: "a PreFilter rejection replaces the list",
			fe:   FitError{NumAllNodes: 2, AbsentStatus: unresolvable("pod affinity terms conflict"), PreFilterMsg: "pod affinity terms conflict"},
			want: "0/2 nodes are available: pod affinity terms conflict.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fe.Error(); got != tt.want {
				t.Errorf("message\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

// TestFailedSchedulingMessage runs whole attempts and checks the message,
// preemption part included.
func TestFailedSchedulingMessage(t *testing.T) {
	controlPlane := makeNode("cp", "4", "8Gi", 110, withTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule))
	never := corev1.PreemptNever
	tests := []struct {
		name     string
		nodes    []*corev1.Node
		bound    []*corev1.Pod
		pod      *corev1.Pod
		want     string
		wantNone bool // no nodes at all
	}{
		{
			name:  "more cpu than any node has",
			nodes: []*corev1.Node{makeNode("a", "4", "8Gi", 110), makeNode("b", "4", "8Gi", 110), makeNode("c", "4", "8Gi", 110)},
			pod:   makePod("big", withRequests("100", "")),
			want:  "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name:  "taint and unresolvable cpu",
			nodes: []*corev1.Node{controlPlane, makeNode("a", "4", "8Gi", 110), makeNode("b", "4", "8Gi", 110)},
			pod:   makePod("big", withRequests("8", "")),
			want:  "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name:  "full nodes, nobody of lower priority",
			nodes: []*corev1.Node{controlPlane, makeNode("a", "4", "8Gi", 110), makeNode("b", "4", "8Gi", 110)},
			bound: []*corev1.Pod{makePod("x", onNode("a"), withRequests("3", "")), makePod("y", onNode("b"), withRequests("3", ""))},
			pod:   makePod("p", withRequests("2", "")),
			want:  "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
		},
		{
			name:  "evicting the lower-priority pods would not be enough",
			nodes: []*corev1.Node{makeNode("a", "4", "8Gi", 110)},
			bound: []*corev1.Pod{makePod("low", onNode("a"), withRequests("1", "")), makePod("high", onNode("a"), withRequests("3", ""), withPriority(100))},
			pod:   makePod("p", withRequests("2", ""), withPriority(50)),
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name:  "evicting would help",
			nodes: []*corev1.Node{makeNode("a", "4", "8Gi", 110), makeNode("b", "4", "8Gi", 110)},
			bound: []*corev1.Pod{makePod("low", onNode("a"), withRequests("3", "")), makePod("high", onNode("b"), withRequests("3", ""), withPriority(100))},
			pod:   makePod("p", withRequests("2", ""), withPriority(50)),
			want:  "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node a, preempting 1 victims",
		},
		{
			name:  "preemptionPolicy Never",
			nodes: []*corev1.Node{makeNode("a", "4", "8Gi", 110)},
			bound: []*corev1.Pod{makePod("low", onNode("a"), withRequests("3", ""))},
			pod:   makePod("p", withRequests("2", ""), withPriority(50), func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never }),
			want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "selector, cordon and pods",
			nodes: []*corev1.Node{makeNode("a", "4", "8Gi", 110, cordoned()), makeNode("b", "4", "8Gi", 1, withLabel("disk", "hdd")),
				makeNode("c", "4", "8Gi", 110, withLabel("disk", "ssd"))},
			bound: []*corev1.Pod{makePod("x", onNode("b"))},
			pod:   makePod("p", withNodeSelector("disk", "hdd")),
			want:  "0/3 nodes are available: 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
		},
		{
			name:     "no nodes",
			pod:      makePod("p"),
			want:     "no nodes available to schedule pods",
			wantNone: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemScheduler(t, tt.nodes...)
			for _, p := range tt.bound {
				m.cache.AddPod(p)
			}
			m.queue.Add(tt.pod)
			m.scheduleNext(t)
			if got := m.binder.get(tt.pod.Name); got != "" {
				t.Fatalf("pod bound to %s, want no binding", got)
			}
			ev := m.lastEvent(t)
			if got := ev.Scheduling.Message; got != tt.want {
				t.Errorf("message\n got: %s\nwant: %s", got, tt.want)
			}
			if want := tt.pod.Name + ": 0/" + itoa(len(tt.nodes)) + " nodes available"; ev.Summary != want {
				t.Errorf("summary = %q, want %q", ev.Summary, want)
			}
			c := m.queue.contents()
			if tt.wantNone {
				// No node at all is not a rejection: it backs off.
				if len(c.Backoff) != 1 {
					t.Errorf("queue = %+v, want the pod in backoffQ", c)
				}
			} else if len(c.Unschedulable) != 1 {
				t.Errorf("queue = %+v, want the pod unschedulable", c)
			}
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestTruncateMessage(t *testing.T) {
	long := make([]byte, 2000)
	for i := range long {
		long[i] = 'x'
	}
	got := truncateMessage(string(long))
	if len(got) != 1024 || got[1020:] != " ..." {
		t.Errorf("truncated to %d bytes ending %q, want 1024 ending \" ...\"", len(got), got[1016:])
	}
	if got := truncateMessage("short"); got != "short" {
		t.Errorf("truncateMessage(short) = %q", got)
	}
}

func TestStatus(t *testing.T) {
	var nilStatus *Status
	if !nilStatus.IsSuccess() || nilStatus.Code() != Success || nilStatus.AsError() != nil || nilStatus.Message() != "" {
		t.Errorf("nil status is not Success: %v", nilStatus)
	}
	st := NewStatus(Unschedulable, "Insufficient cpu", "Insufficient memory").WithPlugin(NodeResourcesFitName)
	if got, want := st.Message(), "Insufficient cpu, Insufficient memory"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if !st.IsRejected() || st.Plugin() != NodeResourcesFitName {
		t.Errorf("status %v: rejected %v plugin %q", st, st.IsRejected(), st.Plugin())
	}
	err := apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("x"))
	if got := AsStatus(err); got.Code() != Error || !errors.Is(got.AsError(), err) {
		t.Errorf("AsStatus(err) = %v, want Error wrapping err", got)
	}
	if AsStatus(nil) != nil {
		t.Errorf("AsStatus(nil) != nil")
	}
}
