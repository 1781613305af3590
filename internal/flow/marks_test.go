package flow_test

import (
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestMarksHoldOncePerPoint: a pod is held at each point once, whatever
// the order the points come in, and Held tells which it was held at.
func TestMarksHoldOncePerPoint(t *testing.T) {
	var m flow.Marks
	steps := []struct {
		point flow.Point
		want  bool
	}{
		{flow.PointBeforeScheduling, true},
		{flow.PointBeforeScheduling, false},
		{flow.PointBeforeBinding, true},
		{flow.PointBeforeScheduling, false},
		{flow.PointBeforeBinding, false},
	}
	for i, s := range steps {
		if got := m.Hold(s.point); got != s.want {
			t.Errorf("step %d: Hold(%s) = %v, want %v", i, s.point, got, s.want)
		}
	}
	for _, p := range flow.Points {
		want := p == flow.PointBeforeScheduling || p == flow.PointBeforeBinding
		if got := m.Held(p); got != want {
			t.Errorf("Held(%s) = %v, want %v", p, got, want)
		}
	}
}

// TestMarksRecordInOrder: a stage is recorded once, and never after a
// later one; stage 0 never.
func TestMarksRecordInOrder(t *testing.T) {
	var m flow.Marks
	steps := []struct {
		stage  flow.Stage
		record bool
	}{
		{0, false},
		{flow.StageAdmitted, true},
		{flow.StageAdmitted, false},
		{flow.StageSchedulerNotified, true},
		{flow.StagePersisted, false}, // came too late: 3 is recorded
		{0, false},
		{flow.StageScheduled, true},
	}
	for i, s := range steps {
		passedBefore := m.Passed(s.stage)
		if passedBefore == s.record {
			t.Errorf("step %d: Passed(%s) = %v before Record, want %v", i, s.stage, passedBefore, !s.record)
		}
		if got := m.Record(s.stage); got != s.record {
			t.Errorf("step %d: Record(%s) = %v, want %v", i, s.stage, got, s.record)
		}
		if !m.Passed(s.stage) {
			t.Errorf("step %d: Passed(%s) = false after Record", i, s.stage)
		}
	}
	if m.Passed(flow.StageBindingPersisted) {
		t.Error("Passed(binding-persisted) = true, want false: only up to scheduled was recorded")
	}
}

// TestMarksHoldsAndStagesApart: holding at a point records no stage, and
// recording a stage holds nowhere.
func TestMarksHoldsAndStagesApart(t *testing.T) {
	var m flow.Marks
	m.Hold(flow.PointBeforeBinding)
	if m.Passed(flow.StageAdmitted) {
		t.Error("a hold recorded a stage")
	}
	var n flow.Marks
	n.Record(flow.StageStatusPersisted)
	for _, p := range flow.Points {
		if n.Held(p) {
			t.Errorf("recording a stage held the pod at %s", p)
		}
	}
}
