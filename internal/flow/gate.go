package flow

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Point names a place where a component may hold a pod's creation: the
// boundary after one stage and before the next.
type Point string

// The points, in the order a pod meets them. Each is reached once per
// pod; the component named in the comment is the one that waits there.
const (
	// PointBeforePersist: the create request has passed authentication,
	// authorization and admission, and waits before its etcd write
	// (apiserver, in the request's handler).
	PointBeforePersist Point = "before-persist"
	// PointBeforeSchedulerWatch: the pod is in etcd; its ADDED event
	// waits before being written to the scheduler's watch connection
	// (apiserver).
	PointBeforeSchedulerWatch Point = "before-scheduler-watch"
	// PointBeforeScheduling: the scheduler has the pod and waits before
	// filtering and scoring the nodes (scheduler).
	PointBeforeScheduling Point = "before-scheduling"
	// PointBeforeBinding: the node is chosen; the scheduler waits before
	// POST pods/<name>/binding (scheduler).
	PointBeforeBinding Point = "before-binding"
	// PointBeforeKubeletWatch: the binding is in etcd; the pod's event
	// waits before being written to its node's kubelet's watch
	// connection (apiserver).
	PointBeforeKubeletWatch Point = "before-kubelet-watch"
	// PointBeforeContainers: the kubelet has the pod and waits before
	// pulling images and creating containers (kubelet).
	PointBeforeContainers Point = "before-containers"
	// PointBeforeStatusReport: the containers run; the kubelet waits
	// before PATCH pods/<name>/status (kubelet).
	PointBeforeStatusReport Point = "before-status-report"
	// PointBeforeStatusPersist: the status patch has passed the request
	// chain and waits before its etcd write (apiserver, in the request's
	// handler).
	PointBeforeStatusPersist Point = "before-status-persist"
)

// PointNextStep is not one of the eight: a scenario's next step waits
// there before its action, so that a learner stepping through also steps
// from one part of the story to the next (scenario runner; the Boundary's
// Object is {Kind: "Step", Name: "<index>/<total> <id>"}).
const PointNextStep Point = "next-step"

// Points lists the points in order.
var Points = []Point{
	PointBeforePersist, PointBeforeSchedulerWatch, PointBeforeScheduling, PointBeforeBinding,
	PointBeforeKubeletWatch, PointBeforeContainers, PointBeforeStatusReport, PointBeforeStatusPersist,
}

// After returns the stage completed when a pod reaches p: the stage whose
// evidence is all in when the system holds there. (PointBeforeContainers
// lies inside stage 6: the kubelet has been notified, the containers are
// not made yet; After says 5, the last stage complete.)
func (p Point) After() Stage {
	switch p {
	case PointBeforePersist:
		return StageAdmitted
	case PointBeforeSchedulerWatch:
		return StagePersisted
	case PointBeforeScheduling:
		return StageSchedulerNotified
	case PointBeforeBinding:
		return StageScheduled
	case PointBeforeKubeletWatch, PointBeforeContainers:
		return StageBindingPersisted
	case PointBeforeStatusReport:
		return StageKubeletNotified
	case PointBeforeStatusPersist:
		return StageStatusReported
	}
	return 0
}

// Boundary is one pod at one point.
type Boundary struct {
	Point     Point     `json:"point"`
	Component string    `json:"component"`
	Object    ObjectRef `json:"object"`
}

func (b Boundary) String() string {
	return fmt.Sprintf("%s/%s at %s (%s)", b.Object.Namespace, b.Object.Name, b.Point, b.Component)
}

// Mode is how a Gate treats the boundaries it is asked about.
type Mode int

const (
	// ModeOff lets every boundary pass at once (the zero value).
	ModeOff Mode = iota
	// ModeAuto lets each boundary pass after the gate's delay.
	ModeAuto
	// ModeStep holds each boundary until Advance.
	ModeStep
)

func (m Mode) String() string {
	switch m {
	case ModeOff:
		return "off"
	case ModeAuto:
		return "auto"
	case ModeStep:
		return "step"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// DefaultAutoDelay is how long ModeAuto holds each boundary at speed 1.
const DefaultAutoDelay = time.Second

// Gate holds the real system at stage boundaries, so that a learner can
// look at each stage before the next begins. Components call Wait at
// their points (see Point); what Wait does depends on the mode: ModeOff
// returns at once, ModeAuto after the delay (or at Advance, if sooner),
// ModeStep at Advance. Changing the mode applies to the boundaries held
// at the time: to ModeStep, they wait for Advance; to ModeAuto, each
// waits the delay from then; to ModeOff, they go. While a boundary is
// held nothing else stops: the component's other work, other pods'
// boundaries, watches and requests go on.
//
// With a Recorder, the gate records an Event with Hold evidence when it
// starts holding a boundary and when it lets it go (Component "gate",
// Stage 0: a hold is not a stage; its Point says which stage it follows).
//
// A nil *Gate lets everything pass. Safe for concurrent use.
type Gate struct {
	rec *Recorder

	mu    sync.Mutex
	mode  Mode
	delay time.Duration
	// held are the boundaries waiting, oldest first.
	held    []*heldBoundary
	changed chan struct{} // closed and replaced when held changes
}

type heldBoundary struct {
	b       Boundary
	release chan struct{} // closed to let the waiter go
	timer   *time.Timer   // ModeAuto's, or nil
}

// NewGate returns a gate in mode m that holds for delay in ModeAuto,
// recording its holds to rec (which may be nil).
func NewGate(m Mode, delay time.Duration, rec *Recorder) *Gate {
	return &Gate{rec: rec, mode: m, delay: delay, changed: make(chan struct{})}
}

// Mode returns the current mode.
func (g *Gate) Mode() Mode {
	if g == nil {
		return ModeOff
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mode
}

// SetMode changes the mode, for the boundaries held now too. On a nil
// Gate it does nothing.
func (g *Gate) SetMode(m Mode) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if m == g.mode {
		return
	}
	g.mode = m
	switch m {
	case ModeOff:
		g.releaseLocked()
	case ModeStep:
		for _, h := range g.held {
			if h.timer != nil {
				h.timer.Stop()
				h.timer = nil
			}
		}
	case ModeAuto:
		if g.delay <= 0 {
			g.releaseLocked()
			break
		}
		for _, h := range g.held {
			g.startTimerLocked(h)
		}
	}
}

// SetDelay changes the ModeAuto delay for the boundaries reached from now.
func (g *Gate) SetDelay(d time.Duration) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.delay = d
}

// Delay returns the ModeAuto delay.
func (g *Gate) Delay() time.Duration {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.delay
}

// Wait returns when boundary b may be passed, or with ctx's error when ctx
// is done first (the caller then gives up what it was about to do, as it
// would for any cancelled context).
func (g *Gate) Wait(ctx context.Context, b Boundary) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	if g.mode == ModeOff || (g.mode == ModeAuto && g.delay <= 0) {
		g.mu.Unlock()
		return nil
	}
	h := &heldBoundary{b: b, release: make(chan struct{})}
	g.held = append(g.held, h)
	if g.mode == ModeAuto {
		g.startTimerLocked(h)
	}
	// Recorded under the lock: whoever sees the hold and calls Advance
	// finds it in held.
	g.record(b, false)
	g.notifyLocked()
	g.mu.Unlock()
	select {
	case <-h.release:
		g.record(b, true)
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		g.removeLocked(h)
		g.mu.Unlock()
		return ctx.Err()
	}
}

// Advance lets every boundary held now go on, and returns how many there
// were. Boundaries reached afterwards are held again.
func (g *Gate) Advance() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.releaseLocked()
}

// Release lets those of the boundaries bs that are held now go on, and
// returns how many they were; every other boundary stays held. A stepper
// that announced what WaitHeld returned releases exactly that, and meets
// a boundary held meanwhile at its next WaitHeld instead of letting it go
// unseen.
func (g *Gate) Release(bs ...Boundary) int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, b := range bs {
		for _, h := range g.held {
			if h.b == b {
				if g.removeLocked(h) {
					close(h.release)
					n++
				}
				break
			}
		}
	}
	return n
}

// Held returns the boundaries held now, oldest first.
func (g *Gate) Held() []Boundary {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.heldLocked()
}

// WaitHeld returns the boundaries held once at least one is, or ctx's
// error (a nil Gate never holds: it waits for ctx).
func (g *Gate) WaitHeld(ctx context.Context) ([]Boundary, error) {
	if g == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for {
		g.mu.Lock()
		if len(g.held) > 0 {
			out := g.heldLocked()
			g.mu.Unlock()
			return out, nil
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (g *Gate) heldLocked() []Boundary {
	out := make([]Boundary, len(g.held))
	for i, h := range g.held {
		out[i] = h.b
	}
	return out
}

func (g *Gate) startTimerLocked(h *heldBoundary) {
	if h.timer != nil {
		h.timer.Stop()
	}
	h.timer = time.AfterFunc(g.delay, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.removeLocked(h) {
			close(h.release)
		}
	})
}

// removeLocked takes h out of held; false if it was not there.
func (g *Gate) removeLocked(h *heldBoundary) bool {
	for i, x := range g.held {
		if x == h {
			if h.timer != nil {
				h.timer.Stop()
			}
			g.held = append(g.held[:i], g.held[i+1:]...)
			g.notifyLocked()
			return true
		}
	}
	return false
}

func (g *Gate) releaseLocked() int {
	n := len(g.held)
	for _, h := range g.held {
		if h.timer != nil {
			h.timer.Stop()
		}
		close(h.release)
	}
	g.held = nil
	if n > 0 {
		g.notifyLocked()
	}
	return n
}

func (g *Gate) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *Gate) record(b Boundary, released bool) {
	verb := "held"
	if released {
		verb = "released"
	}
	g.rec.Record(Event{
		Component: "gate",
		Object:    b.Object,
		Time:      time.Now(),
		Summary:   fmt.Sprintf("%s %s/%s at %s", verb, b.Object.Namespace, b.Object.Name, b.Point),
		Hold:      &Hold{Boundary: b, Released: released},
	})
}
