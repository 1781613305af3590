package main

import (
	"context"
	"errors"
	"strings"
)

// poseStage4 steps pod-create until the scheduler holds nginx before its
// binding (stage 4 complete) and opens the stage-4 arrow: the filter and
// score table.
func poseStage4(ctx context.Context, tab context.Context, l *lesson) error {
	err := l.driveUntil(ctx, next(tab), func(l *lesson) bool {
		for _, h := range l.held {
			if !h.Step && h.After >= 4 {
				return true
			}
		}
		return false
	})
	if err != nil {
		return err
	}
	id := 0
	l.mu.Lock()
	for _, a := range l.arrows {
		if a.Stage == 4 && a.Kind == "schedule" {
			id = a.ID
			break
		}
	}
	l.mu.Unlock()
	if id == 0 {
		return errors.New("held after stage 4, but no stage-4 schedule arrow came")
	}
	if err := openArrow(tab, id); err != nil {
		return err
	}
	// The scoring table is wide: give the evidence pane more room, and
	// the diagram the room of step 3's question (not this picture's point).
	if err := clickIfPresent(tab, "#q-hide"); err != nil {
		return err
	}
	return clickIfPresent(tab, "#widen")
}

// poseCRD steps server-chain until its step crd has finished and the next
// step waits, and opens the CRD create's request arrow (the servers of
// the chain it went through).
func poseCRD(ctx context.Context, tab context.Context, l *lesson) error {
	err := l.driveUntil(ctx, next(tab), func(l *lesson) bool {
		return l.steps["crd"].Done && l.heldKey() != ""
	})
	if err != nil {
		return err
	}
	id := 0
	l.mu.Lock()
	for _, a := range l.arrows {
		// The create, not kubectl apply's GET before it.
		if a.Kind == "request" && strings.HasPrefix(a.Label, "POST ") && strings.Contains(a.Label, "customresourcedefinitions") && len(a.Hops) > 0 {
			id = a.ID
			break
		}
	}
	l.mu.Unlock()
	if id == 0 {
		return errors.New("the crd step finished, but no POST of customresourcedefinitions with hops came")
	}
	return openArrow(tab, id)
}
