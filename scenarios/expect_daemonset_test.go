package scenarios

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestParseDaemonSetExpectation: name and at least one figure.
func TestParseDaemonSetExpectation(t *testing.T) {
	three, one := int64(3), int64(1)
	checkParse(t, parseDaemonSetExpectation, []parseCase[Expectation]{
		{name: "figures", key: "daemonSet", src: "{name: agent, desired: 3, misscheduled: 1}",
			want: &DaemonSetExpectation{DaemonSet: ObjectSpec{Kind: "DaemonSet", Name: "agent", Namespace: "default"}, Desired: &three, Misscheduled: &one}},
		{name: "no figure", key: "daemonSet", src: "{name: agent}",
			wantErr: "1:1: daemonSet: give at least one of desired, current, ready, upToDate, available, misscheduled"},
	})
}

// TestDaemonSetProbe: the figures are read from the status, once it is
// of the current generation.
func TestDaemonSetProbe(t *testing.T) {
	ds := func(gen, observed int64) runtime.Object {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default", Generation: gen},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3,
				NumberReady: 2, UpdatedNumberScheduled: 3, NumberAvailable: 2, NumberMisscheduled: 1}}
	}
	three, two, one := int64(3), int64(2), int64(1)
	ref := ObjectSpec{Kind: "DaemonSet", Name: "agent", Namespace: "default"}
	checkProbes(t, []probeCase{
		{name: "as asked", e: &DaemonSetExpectation{DaemonSet: ref, Desired: &three, Ready: &two, Misscheduled: &one}, objs: []runtime.Object{ds(1, 1)}, wantOK: true},
		{name: "other figures", e: &DaemonSetExpectation{DaemonSet: ref, Ready: &three}, objs: []runtime.Object{ds(1, 1)},
			wantGot: "desired 3, current 3, ready 2, upToDate 3, available 2, misscheduled 1"},
		{name: "old status", e: &DaemonSetExpectation{DaemonSet: ref, Ready: &two}, objs: []runtime.Object{ds(2, 1)},
			wantGot: "desired 3, current 3, ready 2, upToDate 3, available 2, misscheduled 1, but its status is of generation 1, not 2 yet"},
		{name: "none", e: &DaemonSetExpectation{DaemonSet: ref, Ready: &two}, wantGot: `404 NotFound: daemonsets.apps "agent" not found`},
	})
}
