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
