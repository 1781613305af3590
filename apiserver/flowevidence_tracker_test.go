package apiserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/internal/flow"
)

func trackerPod(uid, node string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: "default", UID: types.UID(uid)},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

func writeEvent(pod *corev1.Pod, op string, rev int64) flow.Event {
	return flow.Event{Object: podRef(pod), Etcd: &flow.EtcdWrite{Op: op, Key: "/registry/pods/default/" + pod.Name, Revision: rev}}
}

// drain returns the stages of the events recorded so far, as "op:stage".
func drain(sub *flow.Subscription) []string {
	var out []string
	for {
		select {
		case ev := <-sub.Events():
			what := "?"
			switch {
			case ev.Etcd != nil:
				what = ev.Etcd.Op
			case ev.Request != nil:
				what = "request"
			case ev.Watch != nil:
				what = "watch"
			}
			out = append(out, fmt.Sprintf("%s:%d", what, ev.Stage))
		default:
			return out
		}
	}
}

func TestPodTrackerStages(t *testing.T) {
	tests := []struct {
		name  string
		track bool
		run   func(tr serverStages)
		want  string
	}{
		{"the creation of a tracked pod", true, func(tr serverStages) {
			p := trackerPod("a", "", "")
			tr.recordStage(flow.Event{Stage: flow.StageAdmitted, Object: podRef(p), Request: &flow.RequestTrace{}})
			tr.recordWrite("create", p, writeEvent(p, "create", 10))
			tr.recordStage(flow.Event{Stage: flow.StageSchedulerNotified, Object: podRef(p), Watch: &flow.WatchDelivery{}})
			tr.recordWrite("update", trackerPod("a", "n1", ""), writeEvent(p, "update", 11))
			tr.recordStage(flow.Event{Stage: flow.StageKubeletNotified, Object: podRef(p), Watch: &flow.WatchDelivery{}})
			tr.recordStage(flow.Event{Stage: flow.StageStatusReported, Object: podRef(p), Request: &flow.RequestTrace{}})
			tr.recordWrite("update", trackerPod("a", "n1", corev1.PodRunning), writeEvent(p, "update", 12))
			// Later writes and a late watch frame have no stage.
			tr.recordWrite("update", trackerPod("a", "n1", corev1.PodSucceeded), writeEvent(p, "update", 13))
			tr.recordStage(flow.Event{Stage: flow.StageKubeletNotified, Object: podRef(p), Watch: &flow.WatchDelivery{}})
			tr.recordWrite("delete", trackerPod("a", "n1", corev1.PodSucceeded), writeEvent(p, "delete", 14))
		}, "[request:1 create:2 watch:3 update:5 watch:6 request:7 update:8 update:0 delete:0]"},
		{"a frame after a later stage is not recorded", true, func(tr serverStages) {
			p := trackerPod("a", "", "")
			tr.recordStage(flow.Event{Stage: flow.StageAdmitted, Object: podRef(p), Request: &flow.RequestTrace{}})
			tr.recordWrite("create", p, writeEvent(p, "create", 10))
			tr.recordWrite("update", trackerPod("a", "n1", ""), writeEvent(p, "update", 11))
			tr.recordStage(flow.Event{Stage: flow.StageSchedulerNotified, Object: podRef(p), Watch: &flow.WatchDelivery{}})
		}, "[request:1 create:2 update:5]"},
		{"an untracked pod", false, func(tr serverStages) {
			p := trackerPod("a", "", "")
			tr.recordStage(flow.Event{Stage: flow.StageAdmitted, Object: podRef(p), Request: &flow.RequestTrace{}})
			tr.recordWrite("create", p, writeEvent(p, "create", 10))
			tr.recordWrite("update", trackerPod("a", "n1", ""), writeEvent(p, "update", 11))
			tr.recordStage(flow.Event{Stage: flow.StageKubeletNotified, Object: podRef(p), Watch: &flow.WatchDelivery{}})
		}, "[create:0 update:0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := flow.NewRecorder()
			sub := rec.Subscribe(100)
			defer sub.Close()
			tr := serverStages{newPodTracker(10), rec}
			if tt.track {
				tr.track("a")
			}
			tt.run(tr)
			if got := fmt.Sprint(drain(sub)); got != tt.want {
				t.Errorf("recorded %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPodTrackerForgets(t *testing.T) {
	tr := serverStages{newPodTracker(2), nil}
	tr.track("a")
	tr.track("b")
	tr.track("c") // pushes a out
	if tr.wants("a", flow.StageAdmitted) || !tr.wants("b", flow.StageAdmitted) || !tr.wants("c", flow.StageAdmitted) {
		t.Errorf("after tracking 3 pods in a tracker of 2: a %v b %v c %v, want a forgotten",
			tr.wants("a", flow.StageAdmitted), tr.wants("b", flow.StageAdmitted), tr.wants("c", flow.StageAdmitted))
	}
	p := trackerPod("b", "", "")
	tr.recordWrite("create", p, writeEvent(p, "create", 5))
	tr.recordWrite("delete", p, writeEvent(p, "delete", 6))
	if tr.wants("b", flow.StageSchedulerNotified) {
		t.Error("a deleted pod is still tracked")
	}
	// abandon forgets only a pod never written.
	tr.abandon("c")
	if tr.wants("c", flow.StageAdmitted) {
		t.Error("an abandoned pod is still tracked")
	}
	tr.track("d")
	d := trackerPod("d", "", "")
	tr.recordWrite("create", d, writeEvent(d, "create", 7))
	tr.abandon("d")
	if !tr.wants("d", flow.StageSchedulerNotified) {
		t.Error("abandon forgot a stored pod")
	}
}

func TestPodTrackerClaimOnce(t *testing.T) {
	tr := serverStages{newPodTracker(10), nil}
	if tr.claim("a", flow.PointBeforePersist, flow.StagePersisted) {
		t.Error("claimed a point for an untracked pod")
	}
	tr.track("a")
	if !tr.claim("a", flow.PointBeforePersist, flow.StagePersisted) {
		t.Error("first claim refused")
	}
	if tr.claim("a", flow.PointBeforePersist, flow.StagePersisted) {
		t.Error("second claim of the same point granted")
	}
	p := trackerPod("a", "", "")
	tr.recordWrite("create", p, writeEvent(p, "create", 3))
	bound := trackerPod("a", "n1", "")
	tr.recordWrite("update", bound, writeEvent(bound, "update", 4))
	if tr.claim("a", flow.PointBeforeSchedulerWatch, flow.StageSchedulerNotified) {
		t.Error("claimed a point whose stage is already past (the pod was bound)")
	}
}

func TestPodTrackerAwait(t *testing.T) {
	tr := serverStages{newPodTracker(10), nil}
	ctx := context.Background()
	if tr.await(ctx, "a", 1, time.Second) {
		t.Error("await of an untracked pod succeeded")
	}
	tr.track("a")
	got := make(chan bool, 1)
	go func() { got <- tr.await(ctx, "a", 7, time.Minute) }()
	p := trackerPod("a", "", "")
	tr.recordWrite("create", p, writeEvent(p, "create", 7))
	select {
	case ok := <-got:
		if !ok {
			t.Error("await returned false after the write was recorded")
		}
	case <-time.After(waitTimeout):
		t.Fatal("await did not return after the write was recorded")
	}
	// The bound: a write never recorded.
	if tr.await(ctx, "a", 8, 10*time.Millisecond) {
		t.Error("await of a write never recorded succeeded")
	}
}

func TestPausableTimer(t *testing.T) {
	const d = 20 * time.Millisecond
	fired := make(chan struct{})
	timer := request.NewPausableTimer(d, func() { close(fired) })
	defer timer.Stop()
	resume := timer.Pause()
	inner := timer.Pause() // pauses nest
	// Paused for many times d: it does not fire.
	select {
	case <-fired:
		t.Fatal("fired while paused")
	case <-time.After(10 * d):
	}
	resume()
	resume() // a second call does nothing
	select {
	case <-fired:
		t.Fatal("fired while one pause is still on")
	case <-time.After(10 * d):
	}
	inner()
	select {
	case <-fired:
	case <-time.After(waitTimeout):
		t.Fatal("did not fire after resuming")
	}
	// Pausing a timer that fired does nothing.
	timer.Pause()()
}
