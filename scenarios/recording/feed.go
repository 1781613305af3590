package recording

import (
	"context"
	"errors"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// FeedOptions say how Feed plays a recording.
type FeedOptions struct {
	// Speed divides the recorded time between two entries, which Feed
	// waits before the second; 0 waits nothing.
	Speed float64
	// Holds hands on the recorded gate holds (flow events with Hold
	// evidence), as the run's printer got them; a replay that holds with
	// a gate of its own leaves them out.
	Holds bool
	// Before and After, if not nil, are called around each entry handed
	// on (an error stops the feed): where a replay holds at a gate.
	Before, After func(ctx context.Context, e *Entry) error
}

// Feed hands the recorded calls to obs in the recorded order: StepStarted,
// StepFinished and, when obs is a scenarios.EventObserver, Event, with
// the values the run's outputs got (each event's Time as it was). It
// returns the recorded run's error (nil when every expectation held), or
// ctx's or a hook's. Feed calls obs from the calling goroutine only.
func (r *Recording) Feed(ctx context.Context, obs scenarios.Observer, o FeedOptions) error {
	eo, _ := obs.(scenarios.EventObserver)
	var prev time.Duration
	for i := range r.Entries {
		e := &r.Entries[i]
		if e.Kind == KindEvent && e.Event.Hold != nil && !o.Holds {
			if e.Event.Hold.Released {
				// The time held was the recorded gate's: a replay that
				// holds at its own gate does not wait it again.
				prev = max(prev, e.At)
			}
			continue
		}
		if err := wait(ctx, e.At-prev, o.Speed); err != nil {
			return err
		}
		prev = e.At
		if o.Before != nil {
			if err := o.Before(ctx, e); err != nil {
				return err
			}
		}
		switch e.Kind {
		case KindStep:
			obs.StepStarted(e.Step.Info())
		case KindResult:
			obs.StepFinished(e.Step.Info(), e.Result.StepResult())
		case KindEvent:
			if eo != nil {
				eo.Event(r.EventOf(e))
			}
		case KindEnd:
			if e.Error != "" {
				return errors.New(e.Error)
			}
			return nil
		}
		if o.After != nil {
			if err := o.After(ctx, e); err != nil {
				return err
			}
		}
	}
	return nil // not reached: Read refuses a recording without its end
}

// EventOf is the flow event of an event entry, its Time restored.
func (r *Recording) EventOf(e *Entry) flow.Event {
	ev := *e.Event
	if e.EventAt != nil {
		ev.Time = r.Header.Started.Add(*e.EventAt)
	}
	return ev
}

// wait waits d divided by speed (nothing at speed 0), or until ctx ends.
func wait(ctx context.Context, d time.Duration, speed float64) error {
	if speed <= 0 || d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(float64(d) / speed))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
