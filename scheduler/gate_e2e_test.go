package scheduler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scheduler"
)

// The step-gate tests hold the scheduler at its two points and look at
// the cluster through the API while it is held. The API server in these
// tests has no gate of its own: only the scheduler's holds and events are
// checked.

// startStepE2E starts a cluster and a scheduler with a gate in step mode
// recording to the scheduler's recorder.
func startStepE2E(t *testing.T, nodes ...*corev1.Node) (*e2e, *flow.Gate) {
	t.Helper()
	var gate *flow.Gate
	e := startE2EWith(t, func(cfg *scheduler.Config) {
		gate = flow.NewGate(flow.ModeStep, 0, cfg.Recorder)
		cfg.Gate = gate
	}, nodes...)
	return e, gate
}

// waitHeld waits until the gate holds pod at point and returns the
// boundary.
func (e *e2e) waitHeld(t *testing.T, g *flow.Gate, point flow.Point, pod string) flow.Boundary {
	t.Helper()
	var found flow.Boundary
	e.waitFor(t, fmt.Sprintf("%s held at %s", pod, point), func(context.Context) (bool, error) {
		for _, b := range g.Held() {
			if b.Point == point && b.Object.Name == pod {
				found = b
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// readFlow reads flow events until one satisfies stop, and returns them
// all (that one last).
func (e *e2e) readFlow(t *testing.T, what string, stop func(flow.Event) bool) []flow.Event {
	t.Helper()
	var out []flow.Event
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-e.flow.Events():
			out = append(out, ev)
			if stop(ev) {
				return out
			}
		case <-deadline:
			t.Fatalf("no flow event for %s within %v; read %d events", what, waitTimeout, len(out))
		}
	}
}

// drainFlow returns the flow events recorded and not read yet.
func (e *e2e) drainFlow() []flow.Event {
	var out []flow.Event
	for {
		select {
		case ev := <-e.flow.Events():
			out = append(out, ev)
		default:
			return out
		}
	}
}

// isHold matches the gate's event holding pod at point.
func isHold(pod string, point flow.Point) func(flow.Event) bool {
	return func(ev flow.Event) bool {
		return ev.Hold != nil && !ev.Hold.Released && ev.Hold.Boundary.Point == point && ev.Object.Name == pod
	}
}

// schedulerEvents keeps the scheduler's events about pod, as
// "stage attempt summary".
func schedulerEvents(events []flow.Event, pod string) []string {
	var out []string
	for _, ev := range events {
		if ev.Component == "scheduler" && ev.Object.Name == pod {
			out = append(out, fmt.Sprintf("%d %d %s", ev.Stage, ev.Scheduling.Attempt, ev.Summary))
		}
	}
	return out
}

// holds counts the gate's holds per "pod point".
func holds(events []flow.Event) map[string]int {
	out := map[string]int{}
	for _, ev := range events {
		if ev.Hold != nil && !ev.Hold.Released {
			out[ev.Object.Name+" "+string(ev.Hold.Boundary.Point)]++
		}
	}
	return out
}

func (e *e2e) getPod(t *testing.T, name string) *corev1.Pod {
	t.Helper()
	p, err := e.admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get pod %s: %v", name, err)
	}
	return p
}

// eventReasons lists the reasons of the Events about pod.
func (e *e2e) eventReasons(t *testing.T, pod string) []string {
	t.Helper()
	list, err := e.admin.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind == "Pod" && ev.InvolvedObject.Name == pod {
			out = append(out, ev.Reason)
		}
	}
	return out
}

// TestEndToEndStepGate walks two pods through the scheduler's points one
// Advance at a time and checks, through the API, that the cluster is as
// held: before scheduling the pod is unbound and nothing was reported
// about it; before binding its stage-4 event is recorded and it is still
// unbound. A pod held before binding does not hold up the next pod.
func TestEndToEndStepGate(t *testing.T) {
	t.Parallel()
	e, gate := startStepE2E(t, node("node-1", "4", "8Gi"))
	var log []flow.Event

	// Held before scheduling: unbound, no event, no decision.
	e.createPod(t, pod("web", "100m", ""))
	b := e.waitHeld(t, gate, flow.PointBeforeScheduling, "web")
	web := e.getPod(t, "web")
	if b.Component != "scheduler" || b.Object.UID != web.UID || b.Object.Namespace != "default" || b.Object.Kind != "Pod" {
		t.Errorf("held boundary %+v, want the scheduler holding pod %s", b, web.UID)
	}
	read := e.readFlow(t, "the hold before scheduling", isHold("web", flow.PointBeforeScheduling))
	log = append(log, read...)
	if got := schedulerEvents(read, "web"); len(got) != 0 {
		t.Errorf("scheduler events before the hold: %v, want none", got)
	}
	if web.Spec.NodeName != "" {
		t.Errorf("held before scheduling, web is bound to %s", web.Spec.NodeName)
	}
	if got := e.eventReasons(t, "web"); len(got) != 0 {
		t.Errorf("held before scheduling, web has events %v, want none", got)
	}

	// Advance: held before binding, the decision recorded (stage 4)
	// before the hold, still unbound.
	if n := gate.Advance(); n != 1 {
		t.Errorf("Advance released %d boundaries, want 1", n)
	}
	e.waitHeld(t, gate, flow.PointBeforeBinding, "web")
	read = e.readFlow(t, "the hold before binding", isHold("web", flow.PointBeforeBinding))
	log = append(log, read...)
	if got, want := schedulerEvents(read, "web"), []string{"4 1 web → node-1"}; !slices.Equal(got, want) {
		t.Errorf("scheduler events before the hold before binding: %q, want %q", got, want)
	}
	if web := e.getPod(t, "web"); web.Spec.NodeName != "" {
		t.Errorf("held before binding, web is bound to %s", web.Spec.NodeName)
	}
	if got := e.eventReasons(t, "web"); slices.Contains(got, "Scheduled") {
		t.Errorf("held before binding, web has events %v, want no Scheduled", got)
	}

	// While web is held before binding, the scheduling loop goes on: the
	// next pod reaches its own hold.
	e.createPod(t, pod("second", "100m", ""))
	e.waitHeld(t, gate, flow.PointBeforeScheduling, "second")
	if got := len(gate.Held()); got != 2 {
		t.Errorf("%d boundaries held, want 2 (web before binding, second before scheduling): %v", got, gate.Held())
	}

	// Advance lets both go: web is bound while second waits before its
	// binding.
	gate.Advance()
	if n := e.waitBound(t, "web"); n != "node-1" {
		t.Errorf("web bound to %s, want node-1", n)
	}
	e.waitHeld(t, gate, flow.PointBeforeBinding, "second")
	if p := e.getPod(t, "second"); p.Spec.NodeName != "" {
		t.Errorf("held before binding, second is bound to %s", p.Spec.NodeName)
	}
	gate.Advance()
	e.waitBound(t, "second")
	e.waitEvent(t, "second", "Scheduled")
	e.waitEvent(t, "web", "Scheduled")

	log = append(log, e.drainFlow()...)
	for _, p := range []string{"web", "second"} {
		if got, want := schedulerEvents(log, p), []string{"4 1 " + p + " → node-1"}; !slices.Equal(got, want) {
			t.Errorf("scheduler events of %s: %q, want %q", p, got, want)
		}
	}
	wantHolds := map[string]int{
		"web before-scheduling": 1, "web before-binding": 1,
		"second before-scheduling": 1, "second before-binding": 1,
	}
	if got := holds(log); fmt.Sprint(got) != fmt.Sprint(wantHolds) {
		t.Errorf("holds = %v, want %v", got, wantHolds)
	}
}

// TestEndToEndStepGateUnschedulable: a pod that fits nowhere is held
// before its first attempt only; its failed attempts are recorded with
// stage 0, the attempt that finds a node with stage 4, once, and only
// that one is held before binding.
func TestEndToEndStepGateUnschedulable(t *testing.T) {
	t.Parallel()
	e, gate := startStepE2E(t, node("node-1", "1", "8Gi"))

	e.createPod(t, pod("big", "4", ""))
	e.waitHeld(t, gate, flow.PointBeforeScheduling, "big")
	gate.Advance()
	e.waitEvent(t, "big", "FailedScheduling")
	isAttempt := func(n int) func(flow.Event) bool {
		return func(ev flow.Event) bool {
			return ev.Component == "scheduler" && ev.Object.Name == "big" && ev.Scheduling != nil && ev.Scheduling.Attempt == n
		}
	}
	log := e.readFlow(t, "attempt 1", isAttempt(1))

	// A node too small: another attempt, not held, stage 0.
	e.createNode(t, node("node-2", "2", "8Gi"))
	log = append(log, e.readFlow(t, "attempt 2", isAttempt(2))...)
	if held := gate.Held(); len(held) != 0 {
		t.Errorf("held %v during a retry, want nothing", held)
	}

	// A node with room: the attempt that finds it is held before binding.
	e.createNode(t, node("node-big", "8", "8Gi"))
	e.waitHeld(t, gate, flow.PointBeforeBinding, "big")
	if p := e.getPod(t, "big"); p.Spec.NodeName != "" {
		t.Errorf("held before binding, big is bound to %s", p.Spec.NodeName)
	}
	gate.Advance()
	if n := e.waitBound(t, "big"); n != "node-big" {
		t.Errorf("big bound to %s, want node-big", n)
	}
	e.waitEvent(t, "big", "Scheduled")
	log = append(log, e.drainFlow()...)

	got := schedulerEvents(log, "big")
	if len(got) < 3 {
		t.Fatalf("scheduler events %q, want two failures and a success", got)
	}
	for i, ev := range got[:len(got)-1] {
		if !strings.HasPrefix(ev, fmt.Sprintf("0 %d big: 0/", i+1)) {
			t.Errorf("attempt %d: %q, want stage 0 with no node", i+1, ev)
		}
	}
	if last, want := got[len(got)-1], fmt.Sprintf("4 %d big → node-big", len(got)); last != want {
		t.Errorf("last attempt: %q, want %q", last, want)
	}
	wantHolds := map[string]int{"big before-scheduling": 1, "big before-binding": 1}
	if h := holds(log); fmt.Sprint(h) != fmt.Sprint(wantHolds) {
		t.Errorf("holds = %v, want %v", h, wantHolds)
	}
}

// TestEndToEndStopWhileHeld: a scheduler stopped while it holds a pod
// returns from Run, withdraws the hold, and leaves the pod unbound.
func TestEndToEndStopWhileHeld(t *testing.T) {
	t.Parallel()
	for _, point := range []flow.Point{flow.PointBeforeScheduling, flow.PointBeforeBinding} {
		t.Run(string(point), func(t *testing.T) {
			t.Parallel()
			e, gate := startStepE2E(t, node("node-1", "4", "8Gi"))
			e.createPod(t, pod("web", "100m", ""))
			e.waitHeld(t, gate, flow.PointBeforeScheduling, "web")
			if point == flow.PointBeforeBinding {
				gate.Advance()
				e.waitHeld(t, gate, flow.PointBeforeBinding, "web")
			}
			e.stop()
			if held := gate.Held(); len(held) != 0 {
				t.Errorf("held after the scheduler stopped: %v", held)
			}
			if p := e.getPod(t, "web"); p.Spec.NodeName != "" {
				t.Errorf("web bound to %s by a stopped scheduler", p.Spec.NodeName)
			}
		})
	}
}

// TestEndToEndDeletedWhileHeld: deleting a pod held by the scheduler ends
// the hold; nothing is bound, nothing stays held.
func TestEndToEndDeletedWhileHeld(t *testing.T) {
	t.Parallel()
	for _, point := range []flow.Point{flow.PointBeforeScheduling, flow.PointBeforeBinding} {
		t.Run(string(point), func(t *testing.T) {
			t.Parallel()
			e, gate := startStepE2E(t, node("node-1", "4", "8Gi"))
			e.createPod(t, pod("web", "100m", ""))
			e.waitHeld(t, gate, flow.PointBeforeScheduling, "web")
			if point == flow.PointBeforeBinding {
				gate.Advance()
				e.waitHeld(t, gate, flow.PointBeforeBinding, "web")
			}
			if err := e.admin.CoreV1().Pods("default").Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			e.waitFor(t, "the hold to end", func(context.Context) (bool, error) { return len(gate.Held()) == 0, nil })

			// The scheduler is free: the next pod is held as usual.
			e.createPod(t, pod("next", "100m", ""))
			e.waitHeld(t, gate, flow.PointBeforeScheduling, "next")
			if slices.Contains(e.eventReasons(t, "web"), "Scheduled") {
				t.Errorf("the deleted pod was bound")
			}
		})
	}
}
