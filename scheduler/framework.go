package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Score bounds: every score plugin's normalized score lies in
// [MinNodeScore, MaxNodeScore], as in kube-scheduler.
const (
	MinNodeScore int64 = 0
	MaxNodeScore int64 = 100
)

// Plugin is the part every scheduling plugin has: a name, the one used in
// verdicts, events and logs.
type Plugin interface {
	Name() string
}

// PreFilterPlugin runs once per scheduling attempt, before any node is
// looked at. It computes what its Filter needs (CycleState) or rejects the
// pod outright. A Skip status means its Filter is not run for this pod; a
// rejection means no node is looked at.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *corev1.Pod) *Status
}

// FilterPlugin decides whether a pod may run on one node. It returns nil
// when it may, and otherwise a status whose reasons say why not, in the
// words learners read in the FailedScheduling event ("Insufficient cpu").
// Filter must not modify nodeInfo.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) *Status
}

// PreScorePlugin runs once per attempt before scoring, with the nodes that
// passed the filters. A Skip status leaves the plugin out of this attempt's
// scoring (it gives no score at all, rather than a score of 0).
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo) *Status
}

// ScorePlugin ranks the nodes that passed the filters. Score gives a raw
// score for one node; NormalizeScore then maps the raw scores of all nodes
// onto [MinNodeScore, MaxNodeScore] in place (plugins whose raw scores are
// already in that range do nothing). The framework multiplies the
// normalized score by the plugin's weight.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *corev1.Pod, nodeInfo *NodeInfo) (int64, *Status)
	NormalizeScore(ctx context.Context, state *CycleState, pod *corev1.Pod, scores []NodeScore) *Status
}

// EnqueueExtensions is implemented by filter plugins that know which
// cluster changes can make a pod they rejected schedulable. The queue moves
// an unschedulable pod back only on such changes (kube-scheduler refines
// this further with per-event queueing hints). A rejecting plugin that does
// not implement it lets any change move the pod.
type EnqueueExtensions interface {
	Plugin
	EventsToRegister() []ClusterEvent
}

// NodeScore is one node's score from one plugin.
type NodeScore struct {
	Name  string
	Score int64
}

// Code is the outcome a plugin reports. The zero Code is Success, which is
// also what a nil *Status means.
type Code int

// The codes, as in kube-scheduler.
const (
	// Success: the pod may go on.
	Success Code = iota
	// Error: something went wrong that has nothing to do with the pod's
	// fit (a bug, a failed API call); the pod is retried with backoff.
	Error
	// Unschedulable: the pod does not fit now; evicting lower-priority pods
	// could change that (so preemption looks at the node).
	Unschedulable
	// UnschedulableAndUnresolvable: the pod does not fit, and evicting pods
	// would not help (a taint, a node selector, a request larger than the
	// whole node).
	UnschedulableAndUnresolvable
	// Skip: the plugin has nothing to do for this pod (from PreFilter or
	// PreScore).
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Skip"}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Status is what a plugin reports: a code, the reasons (for people) and,
// for Error, the error. A nil *Status means Success; every method accepts a
// nil receiver.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a status with the code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps err in a status with code Error; nil gives nil.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Reasons returns the reasons (nil for Success).
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// IsSuccess reports whether the code is Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsSkip reports whether the code is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the pod was found not to fit (Unschedulable
// or UnschedulableAndUnresolvable).
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// Plugin returns the name of the plugin that produced the status, once the
// framework has set it.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin sets the plugin name and returns s.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil {
		s.plugin = name
	}
	return s
}

// AsError returns nil for Success and Skip, the wrapped error for Error,
// and an error carrying the message otherwise.
func (s *Status) AsError() error {
	switch {
	case s.IsSuccess(), s.IsSkip():
		return nil
	case s.err != nil:
		return s.err
	}
	return errors.New(s.Message())
}

func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	if len(s.reasons) == 0 {
		return s.code.String()
	}
	return s.code.String() + ": " + s.Message()
}

// CycleState carries data between the extension points of one scheduling
// attempt (PreFilter and PreScore compute, Filter and Score read). It
// belongs to one attempt. Writes happen one at a time (PreFilter,
// PreScore); Filter and Score may run on several nodes at once and only
// read, which is safe. kube-scheduler keeps it in a sync.Map; a handful of
// entries in a slice are found faster, and Filter and Score read them on
// every node.
type CycleState struct {
	entries []stateEntry
}

type stateEntry struct {
	key   string
	value any
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState { return &CycleState{} }

// Read returns the value stored under key.
func (c *CycleState) Read(key string) (any, bool) {
	for i := range c.entries {
		if c.entries[i].key == key {
			return c.entries[i].value, true
		}
	}
	return nil, false
}

// Write stores v under key.
func (c *CycleState) Write(key string, v any) {
	for i := range c.entries {
		if c.entries[i].key == key {
			c.entries[i].value = v
			return
		}
	}
	c.entries = append(c.entries, stateEntry{key, v})
}

// reset empties the state for the next attempt, keeping its room.
func (c *CycleState) reset() {
	clear(c.entries)
	c.entries = c.entries[:0]
}

// EventResource names the kind of object a cluster change is about.
type EventResource string

// The resources whose changes move unschedulable pods.
const (
	// NodeResource is a Node object.
	NodeResource EventResource = "Node"
	// AssignedPod is a pod bound to a node.
	AssignedPod EventResource = "AssignedPod"
	// PersistentVolumeClaimResource is a PersistentVolumeClaim.
	PersistentVolumeClaimResource EventResource = "PersistentVolumeClaim"
)

// ActionType is a set of changes to a resource.
type ActionType uint32

// The changes, as bits.
const (
	ActionAdd ActionType = 1 << iota
	ActionDelete
	// ActionUpdateNodeAllocatable: status.allocatable changed.
	ActionUpdateNodeAllocatable
	// ActionUpdateNodeLabel: labels changed.
	ActionUpdateNodeLabel
	// ActionUpdateNodeTaint: spec.taints or spec.unschedulable changed.
	ActionUpdateNodeTaint
	// ActionUpdate: an object other than a node changed.
	ActionUpdate

	// ActionAll matches every change.
	ActionAll ActionType = 1<<iota - 1
)

// ClusterEvent is a change in the cluster: what changed and how.
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
}

// Match reports whether ev is one of the changes e stands for.
func (e ClusterEvent) Match(ev ClusterEvent) bool {
	return e.Resource == ev.Resource && e.ActionType&ev.ActionType != 0
}

func (e ClusterEvent) String() string {
	var parts []string
	for _, a := range []struct {
		bit  ActionType
		name string
	}{
		{ActionAdd, "Add"}, {ActionDelete, "Delete"}, {ActionUpdateNodeAllocatable, "UpdateNodeAllocatable"},
		{ActionUpdateNodeLabel, "UpdateNodeLabel"}, {ActionUpdateNodeTaint, "UpdateNodeTaint"}, {ActionUpdate, "Update"},
	} {
		if e.ActionType&a.bit != 0 {
			parts = append(parts, a.name)
		}
	}
	return string(e.Resource) + "/" + strings.Join(parts, "|")
}
