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
	// holds are the gate's holds of the pod, in the order they began.
	holds []holdSpan
	// failed are the scheduler's attempts that found no node (stage 0
	// events: the stage-4 event is the attempt that found one).
	failed []flow.Event
	// traces are the complete traces (stage 0, at the request's end) of
	// the requests whose start is a staged event, by audit ID.
	traces map[string]*flow.RequestTrace
	// creator is the action of the controller that created the pod (its
	// story before stage 1), nil when none did or it has not come yet.
	creator *flow.Event
}

// holdSpan is one hold of the gate: from its Hold event to its release
// (to is zero while it lasts).
type holdSpan struct {
	point    flow.Point
	from, to time.Time
}

func newPodTrack(ref flow.ObjectRef) *podTrack {
	return &podTrack{ref: ref, traces: map[string]*flow.RequestTrace{}}
}

// add files e under the track.
func (t *podTrack) add(e flow.Event) {
	switch {
	case flow.CreatorOf(e) != nil:
		t.creator = &e
	case e.Hold != nil:
		if e.Hold.Released {
			for i := len(t.holds) - 1; i >= 0; i-- {
				if h := &t.holds[i]; h.point == e.Hold.Boundary.Point && h.to.IsZero() {
					h.to = e.Time
					break
				}
			}
			if t.held != nil && t.held.Point == e.Hold.Boundary.Point {
				t.held = nil
			}
			return
		}
		b := e.Hold.Boundary
		t.held, t.heldAt = &b, e.Time
		t.holds = append(t.holds, holdSpan{point: b.Point, from: e.Time})
	case e.Stage >= flow.StageAdmitted && e.Stage <= flow.StageStatusPersisted:
		t.stages[e.Stage] = append(t.stages[e.Stage], e)
		if t.held != nil && heldStage(t.held.Point) < e.Stage {
			t.held = nil // the release was lost
		}
		if t.held == nil {
			for i := range t.holds {
				if h := &t.holds[i]; h.to.IsZero() && heldStage(h.point) < e.Stage {
					h.to = e.Time
				}
			}
		}
	case e.Scheduling != nil && e.Scheduling.Chosen == "":
		if len(t.failed) < maxFailed {
			t.failed = append(t.failed, e)
		}
	case e.Request != nil && e.Request.AuditID != "":
		t.traces[e.Request.AuditID] = e.Request
	}
}

// maxFailed bounds the failed scheduling attempts kept per pod.
const maxFailed = 32

// unschedulable reports whether the scheduler tried the pod and found
// no node, and has not bound it since.
func (t *podTrack) unschedulable() bool {
	return len(t.failed) > 0 && len(t.stages[flow.StageScheduled]) == 0
}

// heldStage is the stage a hold at p keeps the pod from: the stage
// whose events come once p is passed. PointBeforeContainers holds in the
// middle of stage 6 (after the kubelet's watch frame, before the
// runtime), so it holds stage 6 like PointBeforeKubeletWatch does.
func heldStage(p flow.Point) flow.Stage {
	return p.After() + 1
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
	stateHeld               // the gate holds the pod before it (or inside it)
	stateDone
)

// state returns how stage s stands.
func (t *podTrack) state(s flow.Stage) stageState {
	r := t.reached()
	if t.held != nil {
		if h := heldStage(t.held.Point); s == h {
			return stateHeld
		} else if s < h && s <= r {
			return stateDone
		}
	}
	switch {
	case s < r, s == r && s == flow.StageStatusPersisted:
		return stateDone
	case s == r:
		return stateActive
	}
	return statePending
}

// current returns the stage to highlight: the held one, else the one in
// progress, else the last (0 before any event).
func (t *podTrack) current() flow.Stage {
	if t.held != nil {
		return heldStage(t.held.Point)
	}
	if t.unschedulable() {
		return flow.StageScheduled
	}
	return t.reached()
}

// end returns when stage s was last seen: its last event; for stage 0,
// when the create request arrived.
func (t *podTrack) end(s flow.Stage) (time.Time, bool) {
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
	at := ev[0].Time
	for _, e := range ev[1:] {
		if e.Time.After(at) {
			at = e.Time
		}
	}
	return at, true
}

// took returns the time the system spent on stage s: from the end of
// stage s-1 to the end of s, without the time the gate held the pod in
// between (in auto mode the pauses, in step mode the learner's). False
// when s has no events yet.
func (t *podTrack) took(s flow.Stage) (time.Duration, bool) {
	from, ok := t.end(s - 1)
	if !ok {
		return 0, false
	}
	to, ok := t.end(s)
	if !ok {
		return 0, false
	}
	return max(to.Sub(from)-t.heldBetween(from, to, to), 0), true
}

// heldFor returns how long the gate held the pod between the end of
// stage s-1 and the end of s (or now, for a stage not reached yet).
func (t *podTrack) heldFor(s flow.Stage, now time.Time) time.Duration {
	from, ok := t.end(s - 1)
	if !ok {
		return 0
	}
	to, ok := t.end(s)
	if !ok {
		to = now
	}
	return t.heldBetween(from, to, now)
}

// heldBetween sums the holds within [from, to]; a hold still on counts
// up to now.
func (t *podTrack) heldBetween(from, to, now time.Time) time.Duration {
	var d time.Duration
	for _, h := range t.holds {
		end := h.to
		if end.IsZero() {
			end = now
		}
		a, b := h.from, end
		if a.Before(from) {
			a = from
		}
		if b.After(to) {
			b = to
		}
		if b.After(a) {
			d += b.Sub(a)
		}
	}
	return d
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
	// controllers holds the latest controller actions and the creators
	// of pods not seen yet (evidence_controller.go).
	controllers controllerLog
}

func newTrackSet() *trackSet {
	return &trackSet{byUID: map[types.UID]*podTrack{}, next: true}
}

// add files e under its pod; it reports whether the followed pod changed
// or was updated.
func (ts *trackSet) add(e flow.Event) bool {
	if e.Controller != nil && !ts.controllers.add(e) {
		return false
	}
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
		t.creator = ts.controllers.creatorOf(uid)
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
