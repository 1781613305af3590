package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestFollowOnePodByUID: the pipeline follows the first pod that
// reaches stage 1 in the current step; other pods' events stay apart.
func TestFollowOnePodByUID(t *testing.T) {
	other := func(e flow.Event) flow.Event {
		e.Object.UID, e.Object.Name = "uid-other", "other"
		return e
	}
	a := noHolds(upTo(flow.StageStatusPersisted))
	tests := []struct {
		name      string
		evs       []flow.Event
		newStep   bool
		more      []flow.Event
		wantName  string
		wantStage flow.Stage
	}{
		{"first pod wins", []flow.Event{a[0], other(a[0]), a[1], other(a[1]), other(a[3])}, false, nil, "nginx", flow.StagePersisted},
		{"other pod's later stages do not move it", []flow.Event{a[0], other(a[0]), other(a[1]), other(a[3]), other(a[4])}, false, nil, "nginx", flow.StageAdmitted},
		{"next step follows the next pod", []flow.Event{a[0], a[1]}, true, []flow.Event{other(a[0])}, "other", flow.StageAdmitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTrackSet()
			for _, e := range tt.evs {
				ts.add(e)
			}
			if tt.newStep {
				ts.next = true
				for _, e := range tt.more {
					ts.add(e)
				}
			}
			f := ts.followed()
			if f == nil {
				t.Fatal("no pod followed")
			}
			if f.ref.Name != tt.wantName || f.reached() != tt.wantStage {
				t.Errorf("followed %s at stage %d, want %s at stage %d", f.ref.Name, f.reached(), tt.wantName, tt.wantStage)
			}
		})
	}
}

// TestHeldInsideStageSix: the hold before the containers comes after the
// kubelet's watch frame (a stage-6 event); the pipeline, the narration and
// the highlighted stage must all say stage 6 is held, not 7.
func TestHeldInsideStageSix(t *testing.T) {
	evs := noHolds(upTo(flow.StageKubeletNotified))
	var upToWatch []flow.Event
	for _, e := range evs {
		if e.Runtime == nil {
			upToWatch = append(upToWatch, e)
		}
	}
	last := upToWatch[len(upToWatch)-1]
	hold := flow.Event{Component: "gate", Object: last.Object, Time: last.Time.Add(time.Millisecond),
		Hold: &flow.Hold{Boundary: flow.Boundary{Point: flow.PointBeforeContainers, Component: "kubelet/node-2", Object: last.Object}}}
	m, _ := startedModel(t, 80, 24, "en")
	m.Update(stepMsg{gen: m.gen, up: testStep})
	m.Update(flowEventsMsg{gen: m.gen, evs: append(upToWatch, hold)})
	tr := m.tracks.followed()
	tests := []struct {
		s    flow.Stage
		want stageState
	}{
		{flow.StageBindingPersisted, stateDone},
		{flow.StageKubeletNotified, stateHeld},
		{flow.StageStatusReported, statePending},
	}
	for _, tt := range tests {
		if got := tr.state(tt.s); got != tt.want {
			t.Errorf("state(%d) = %d, want %d", tt.s, got, tt.want)
		}
	}
	if got := tr.current(); got != flow.StageKubeletNotified {
		t.Errorf("current() = %d, want 6", got)
	}
	v := m.View()
	for _, want := range []string{"held at stage 6: the kubelet has it, before pulling and creating containers", "‖ 6 kubelet runs", "· 7 status sent"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// before any runtime action, stage 6's evidence is the watch frame
	if !strings.Contains(v, "[watch]") || strings.Contains(v, "no kubelet evidence") {
		t.Errorf("stage 6 without runtime actions does not open the watch tab:\n%s", v)
	}
}

// TestStageTimes: a stage's time is the system's, from the end of the
// previous stage to its own end, without the gate's holds; the runtime's
// work counts for stage 6, not 7.
func TestStageTimes(t *testing.T) {
	ts := newTrackSet()
	for _, e := range upTo(flow.StageStatusPersisted) {
		ts.add(e)
	}
	tr := ts.followed()
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	tests := []struct {
		s    flow.Stage
		want time.Duration
	}{
		{flow.StageAdmitted, ms(0.355)},
		{flow.StagePersisted, ms(1204 - 0.355 - 900)},
		{flow.StageSchedulerNotified, ms(2207 - 1204 - 900)},
		{flow.StageKubeletNotified, ms(7120 - 4230 - 900 - 900)},
		{flow.StageStatusReported, ms(8101 - 7120 - 900)},
		{flow.StageStatusPersisted, ms(9110 - 8101 - 900)},
	}
	for _, tt := range tests {
		got, ok := tr.took(tt.s)
		if !ok || got != tt.want {
			t.Errorf("took(%d) = %v, %v; want %v", tt.s, got, ok, tt.want)
		}
	}
	if got, want := tr.heldFor(flow.StageKubeletNotified, t0), 1800*time.Millisecond; got != want {
		t.Errorf("heldFor(6) = %v, want %v", got, want)
	}
}
