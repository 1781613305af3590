package scheduler

import (
	"context"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

// The evidence of an attempt is built only while someone reads the
// recorder's events.
func TestEvidenceOnlyWithReaders(t *testing.T) {
	rec := flow.NewRecorder()
	s := newScheduler(&Config{SchedulerName: DefaultSchedulerName, InitialBackoff: DefaultInitialBackoff, MaxBackoff: DefaultMaxBackoff,
		TieBreaker: FirstByName, Recorder: rec}, nil)
	s.cache.AddNode(makeNode("a", "4", "8Gi", 110))
	s.cache.AddNode(makeNode("b", "4", "8Gi", 110))
	s.cache.UpdateSnapshot(s.snap)
	ctx := context.Background()

	if a := s.schedulePod(ctx, makePod("unread")); a.host != "a" || a.decision != nil {
		t.Errorf("without readers: host %q, decision %+v; want a and no decision", a.host, a.decision)
	}
	sub := rec.Subscribe(10)
	a := s.schedulePod(ctx, makePod("read"))
	if a.decision == nil || len(a.decision.Nodes) != 2 {
		t.Fatalf("with a reader: decision %+v, want verdicts for both nodes", a.decision)
	}
	sub.Close()
	if a := s.schedulePod(ctx, makePod("unread-again")); a.decision != nil {
		t.Errorf("after the reader left: decision %+v, want none", a.decision)
	}
}
