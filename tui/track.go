package tui

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// maxTracks bounds the pods remembered per session; the oldest that is
// not followed is forgotten first.
const maxTracks = 256

// podTrack is what the TUI knows of one pod's creation: its staged
// events, in the order they came, and whether the gate holds it.
type podTrack struct {
	ref    flow.ObjectRef
	stages [9][]flow.Event // by stage, 1..8
	// held is the boundary the gate holds the pod at, or nil; heldAt is
	// when the hold began.
	held   *flow.Boundary
	heldAt time.Time
	// traces are the complete traces (stage 0, at the request's end) of
	// the requests whose start is a staged event, by audit ID.
	traces map[string]*flow.RequestTrace
}

func newPodTrack(ref flow.ObjectRef) *podTrack {
	return &podTrack{ref: ref, traces: map[string]*flow.RequestTrace{}}
}

// add files e under the track.
func (t *podTrack) add(e flow.Event) {
	switch {
	case e.Hold != nil:
		if e.Hold.Released {
			if t.held != nil && t.held.Point == e.Hold.Boundary.Point {
				t.held = nil
			}
			return
		}
		b := e.Hold.Boundary
		t.held, t.heldAt = &b, e.Time
	case e.Stage >= flow.StageAdmitted && e.Stage <= flow.StageStatusPersisted:
		t.stages[e.Stage] = append(t.stages[e.Stage], e)
		if t.held != nil && t.held.Point.After() < e.Stage {
			t.held = nil // the release was lost
		}
	case e.Request != nil && e.Request.AuditID != "":
		t.traces[e.Request.AuditID] = e.Request
	}
}

// reached returns the highest stage with events (0 for none).
func (t *podTrack) reached() flow.Stage {
	for s := flow.StageStatusPersisted; s >= flow.StageAdmitted; s-- {
		if len(t.stages[s]) > 0 {
			return s
		}
	}
	return 0
}

// stageState says how a stage stands for the pipeline.
type stageState int

const (
	statePending stageState = iota
	stateActive             // its events are coming in
	stateHeld               // the gate holds the pod just before it
	stateDone
)

// state returns how stage s stands.
func (t *podTrack) state(s flow.Stage) stageState {
	r := t.reached()
	switch {
	case s < r, s == r && s == flow.StageStatusPersisted:
		return stateDone
	case s == r:
		if t.held != nil && t.held.Point.After() >= s {
			return stateDone
		}
		return stateActive
	case s == r+1 && t.held != nil:
		return stateHeld
	}
	return statePending
}

// current returns the stage to highlight: the held one, else the one in
// progress, else the last (0 before any event).
func (t *podTrack) current() flow.Stage {
	r := t.reached()
	if r < flow.StageStatusPersisted && t.state(r+1) == stateHeld {
		return r + 1
	}
	return r
}

// start returns the time of stage s's first event; for stage 0, when
// the create request arrived.
func (t *podTrack) start(s flow.Stage) (time.Time, bool) {
	if s == 0 {
		ev := t.stages[flow.StageAdmitted]
		if len(ev) == 0 {
			return time.Time{}, false
		}
		at := ev[0].Time
		if r := ev[0].Request; r != nil && len(r.Steps) > 0 {
			at = at.Add(-r.Steps[len(r.Steps)-1].At)
		}
		return at, true
	}
	ev := t.stages[s]
	if len(ev) == 0 {
		return time.Time{}, false
	}
	return ev[0].Time, true
}

// took returns how long the pod took to get through stage s: from the
// previous stage's first event to s's (held time included). For a held
// or active stage not reached yet it counts up to now.
func (t *podTrack) took(s flow.Stage, now time.Time) (time.Duration, bool) {
	prev, ok := t.start(s - 1)
	if !ok {
		return 0, false
	}
	if end, ok := t.start(s); ok {
		return end.Sub(prev), true
	}
	if t.state(s) == stateHeld {
		return now.Sub(prev), true
	}
	return 0, false
}

// events returns every staged event of the pod in stage order.
func (t *podTrack) events() []flow.Event {
	var out []flow.Event
	for s := flow.StageAdmitted; s <= flow.StageStatusPersisted; s++ {
		out = append(out, t.stages[s]...)
	}
	return out
}

// trackSet keeps the pods of one session apart by UID and knows which
// one the TUI follows: the first that reaches stage 1 in the current
// scenario step.
type trackSet struct {
	byUID  map[types.UID]*podTrack
	order  []types.UID
	follow types.UID
	// next is set at a step's start: the next stage-1 pod is followed.
	next bool
}

func newTrackSet() *trackSet {
	return &trackSet{byUID: map[types.UID]*podTrack{}, next: true}
}

// add files e under its pod; it reports whether the followed pod changed
// or was updated.
func (ts *trackSet) add(e flow.Event) bool {
	uid := e.Object.UID
	if e.Hold != nil && uid == "" {
		uid = e.Hold.Boundary.Object.UID
	}
	if uid == "" || (e.Object.Kind != "" && e.Object.Kind != "Pod" && e.Hold == nil) {
		return false
	}
	t, ok := ts.byUID[uid]
	if !ok {
		if e.Stage == 0 {
			return false // a pod we never saw staged
		}
		t = newPodTrack(e.Object)
		ts.byUID[uid] = t
		ts.order = append(ts.order, uid)
		ts.trim()
	}
	t.add(e)
	if e.Stage == flow.StageAdmitted && (ts.next || ts.follow == "") {
		ts.follow, ts.next = uid, false
		return true
	}
	return uid == ts.follow
}

func (ts *trackSet) trim() {
	for len(ts.order) > maxTracks {
		for i, uid := range ts.order {
			if uid != ts.follow {
				delete(ts.byUID, uid)
				ts.order = append(ts.order[:i], ts.order[i+1:]...)
				break
			}
		}
	}
}

// followed returns the followed pod's track, or nil.
func (ts *trackSet) followed() *podTrack {
	return ts.byUID[ts.follow]
}

// list returns the tracks in the order their pods appeared.
func (ts *trackSet) list() []*podTrack {
	out := make([]*podTrack, 0, len(ts.order))
	for _, uid := range ts.order {
		out = append(out, ts.byUID[uid])
	}
	return out
}
