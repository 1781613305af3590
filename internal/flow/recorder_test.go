package flow_test

import (
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestRecorderFanOutAndDrops(t *testing.T) {
	r := flow.NewRecorder()
	fast := r.Subscribe(10)
	slow := r.Subscribe(2)
	defer fast.Close()
	for i := 0; i < 5; i++ {
		r.Record(flow.Event{Summary: string(rune('a' + i))})
	}
	var got string
	for i := 0; i < 5; i++ {
		got += (<-fast.Events()).Summary
	}
	if got != "abcde" {
		t.Errorf("fast subscriber got %q, want abcde in order", got)
	}
	if fast.Dropped() != 0 {
		t.Errorf("fast subscriber dropped %d", fast.Dropped())
	}
	if slow.Dropped() != 3 {
		t.Errorf("slow subscriber dropped %d, want 3 (buffer 2 of 5)", slow.Dropped())
	}
	if e := <-slow.Events(); e.Summary != "a" {
		t.Errorf("slow subscriber's first event %q, want the oldest kept (a)", e.Summary)
	}
	slow.Close()
	slow.Close()
	r.Record(flow.Event{Summary: "after close"})
	for e := range slow.Events() { // buffered events, then the end
		if e.Summary == "after close" {
			t.Error("closed subscription still receives")
		}
	}
	var nilRec *flow.Recorder
	nilRec.Record(flow.Event{}) // must not panic
}

func TestRecorderHasReaders(t *testing.T) {
	var nilRec *flow.Recorder
	if nilRec.HasReaders() {
		t.Error("a nil Recorder has readers")
	}
	r := flow.NewRecorder()
	if r.HasReaders() {
		t.Error("a new Recorder has readers")
	}
	a, b := r.Subscribe(1), r.Subscribe(1)
	if !r.HasReaders() {
		t.Error("no readers with two subscriptions")
	}
	a.Close()
	if !r.HasReaders() {
		t.Error("no readers with one subscription left")
	}
	b.Close()
	b.Close()
	if r.HasReaders() {
		t.Error("readers after every subscription closed")
	}
}

func TestStages(t *testing.T) {
	if len(flow.Stages) != 8 {
		t.Fatalf("%d stages, want 8", len(flow.Stages))
	}
	for i, s := range flow.Stages {
		if int(s.Stage) != i+1 || s.Name == "" || s.Title.En == "" || s.Title.Zh == "" {
			t.Errorf("stage %d: %+v", i+1, s)
		}
		if info, ok := s.Stage.Info(); !ok || info != s {
			t.Errorf("Info(%d) = %+v %v", s.Stage, info, ok)
		}
	}
	if flow.Stage(0).String() != "none" || flow.Stage(9).String() != "stage(9)" {
		t.Error("String of out-of-range stages")
	}
}

// TestRecorderStamped: events recorded through a stamped recorder reach
// the subscribers of the recorder it was made from, in one sequence,
// with its instance where they named none; its readers are that
// recorder's.
func TestRecorderStamped(t *testing.T) {
	r := flow.NewRecorder()
	second := r.Stamped("API server 2")
	if second.HasReaders() {
		t.Error("HasReaders with no subscriber")
	}
	sub := second.Subscribe(10)
	defer sub.Close()
	if !r.HasReaders() || !second.HasReaders() {
		t.Error("a subscription through the stamped recorder is not one of r's")
	}
	r.Record(flow.Event{Summary: "first"})
	second.Record(flow.Event{Summary: "second"})
	second.Record(flow.Event{Summary: "third", Instance: "kubesim-scheduler-2"})
	for i, want := range []struct{ summary, instance string }{{"first", ""}, {"second", "API server 2"}, {"third", "kubesim-scheduler-2"}} {
		e := <-sub.Events()
		if e.Summary != want.summary || e.Instance != want.instance || e.Seq != uint64(i+1) {
			t.Errorf("event %d = %q instance %q seq %d, want %q instance %q seq %d", i, e.Summary, e.Instance, e.Seq, want.summary, want.instance, i+1)
		}
	}
}
