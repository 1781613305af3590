package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/kubelet"
)

// Defaults of the scenario format.
const (
	// DefaultTimeout bounds a step's action and each of its expectations.
	DefaultTimeout = 30 * time.Second
	// DefaultSpeed is a scenario's speed when its cluster section says none.
	DefaultSpeed = 1.0
	// DefaultNamespace is the namespace of objects that name none.
	DefaultNamespace = "default"
	// DefaultUser is who acts when a step says no `as`.
	DefaultUser = "admin"
	// DefaultPollInterval is the interval of an http poll that names none.
	DefaultPollInterval = time.Second
)

// Languages are the languages every text of a scenario has.
var Languages = []string{"en", "zh"}

// Levels are the values of a scenario's level, easiest first.
var Levels = []string{"beginner", "intermediate", "advanced"}

// Scenario is a loaded scenario: valid, with its manifests decoded. It is
// not changed by Run, so one Scenario may be run many times, also
// concurrently.
type Scenario struct {
	// Name is the scenario's name ([a-z0-9-]+); a library file is named
	// after it.
	Name    string
	Title   flow.Text
	Summary flow.Text
	// Level is one of Levels.
	Level   string
	Cluster ClusterSpec
	Steps   []*Step
	// File is where the scenario was read from, as errors name it
	// ("library/pod-create.yaml", or the path given to Load).
	File string
}

// ClusterSpec is the cluster a scenario runs on (see Configure).
type ClusterSpec struct {
	// Nodes are the simulated nodes started with the cluster.
	Nodes []kubelet.NodeSpec
	// Scheduler says whether the scheduler runs from the start.
	Scheduler bool
	// Speed is the scenario's speed (simulated delays, pauses and the
	// gate's auto delay are divided by it; 0 removes them).
	Speed float64
}

// Step is one step of a scenario: narration, at most one action, an
// optional pause, and expectations.
type Step struct {
	// Index is the step's position, from 1.
	Index int
	// ID is the step's optional id ([a-z0-9-]+, unique in the scenario).
	ID        string
	Narration flow.Text
	// As is the user the action acts as (DefaultUser if the file says
	// none): admin, student, system:kube-scheduler or system:node:<node>.
	As string
	// Action is what the step does; nil for a step that only narrates
	// (or only waits).
	Action Action
	// Wait is a pause after the action, before the expectations, at
	// speed 1 (divided by the speed; none at speed 0).
	Wait time.Duration
	// Expect are checked in order after the action (and the pause); each
	// may take until Timeout to hold.
	Expect []Expectation
	// Timeout bounds the action and each expectation (DefaultTimeout).
	Timeout time.Duration
	// Line and Col are where the step starts in its file.
	Line, Col int
}

// Name returns "<index>" or "<index> <id>", for messages.
func (s *Step) Name() string {
	if s.ID == "" {
		return fmt.Sprint(s.Index)
	}
	return fmt.Sprintf("%d (%s)", s.Index, s.ID)
}

// Action is what a step does. The concrete types are the *XxxAction types
// of this package; Kind is the action's key in the file ("apply").
type Action interface {
	Kind() string
	// String describes the action for people, e.g. "apply Pod default/nginx".
	String() string
}

// Expectation is something that must hold after a step's action. The
// concrete types are the *XxxExpectation types of this package; Kind is
// the expectation's key in the file ("podStage").
type Expectation interface {
	Kind() string
	String() string
}

// PodStageExpectation: the pod has reached Stage, as the flow events of
// the running components tell (not the API).
type PodStageExpectation struct {
	Pod, Namespace string
	Stage          flow.Stage
}

func (e *PodStageExpectation) Kind() string { return "podStage" }
func (e *PodStageExpectation) String() string {
	return fmt.Sprintf("podStage %d (%s) for %s", int(e.Stage), e.Stage, nsName(e.Namespace, e.Pod))
}

// PodPhaseExpectation: the pod's status.phase is Phase.
type PodPhaseExpectation struct{ Pod, Namespace, Phase string }

func (e *PodPhaseExpectation) Kind() string { return "podPhase" }
func (e *PodPhaseExpectation) String() string {
	return fmt.Sprintf("podPhase %s for %s", e.Phase, nsName(e.Namespace, e.Pod))
}

// ContainerStateExpectation: a container of the pod (Container, or any)
// is in a state with Reason (a waiting or terminated reason, or one of
// Running, Waiting, Terminated) and has restarted at least RestartsAtLeast
// times.
type ContainerStateExpectation struct {
	Pod, Namespace, Container string
	Reason                    string
	RestartsAtLeast           int32
}

func (e *ContainerStateExpectation) Kind() string { return "containerState" }
func (e *ContainerStateExpectation) String() string {
	s := "containerState"
	if e.Reason != "" {
		s += " " + e.Reason
	}
	if e.RestartsAtLeast > 0 {
		s += fmt.Sprintf(" with at least %d restarts", e.RestartsAtLeast)
	}
	s += " for " + nsName(e.Namespace, e.Pod)
	if e.Container != "" {
		s += " container " + e.Container
	}
	return s
}

// EventExpectation: an Event about Object (of ObjectKind, if given) has
// Reason and a message containing Message.
type EventExpectation struct {
	Object, ObjectKind, Namespace string
	Reason, Message               string
}

func (e *EventExpectation) Kind() string { return "event" }
func (e *EventExpectation) String() string {
	s := fmt.Sprintf("event %s for %s", e.Reason, nsName(e.Namespace, e.Object))
	if e.Message != "" {
		s += fmt.Sprintf(" with message containing %q", e.Message)
	}
	return s
}

// StatusExpectation: the action's HTTP status is Code.
type StatusExpectation struct{ Code int }

func (e *StatusExpectation) Kind() string   { return "status" }
func (e *StatusExpectation) String() string { return fmt.Sprintf("status %d", e.Code) }

// MessageExpectation: the action's error message (or response body)
// contains Contains.
type MessageExpectation struct{ Contains string }

func (e *MessageExpectation) Kind() string   { return "message" }
func (e *MessageExpectation) String() string { return fmt.Sprintf("message containing %q", e.Contains) }

// WatchEventsExpectation: the step's watch or long-poll read events of
// exactly these types, in this order.
type WatchEventsExpectation struct{ Types []string }

func (e *WatchEventsExpectation) Kind() string { return "watchEvents" }
func (e *WatchEventsExpectation) String() string {
	return "watchEvents [" + strings.Join(e.Types, " ") + "]"
}

// AbsentExpectation: the object does not exist.
type AbsentExpectation struct{ Object ObjectSpec }

func (e *AbsentExpectation) Kind() string   { return "absent" }
func (e *AbsentExpectation) String() string { return e.Object.String() + " absent" }

// CanIExpectation: a SelfSubjectAccessReview sent as User (what `kubectl
// auth can-i VERB RESOURCE --as USER` asks) answers Allowed. Resource may
// name a subresource ("pods/status"); Namespace "" asks at the cluster
// scope. It is polled like every expectation, so it also waits for the
// API server's authorizer to see a new binding.
type CanIExpectation struct {
	User, Verb, Resource, Namespace string
	Allowed                         bool
}

func (e *CanIExpectation) Kind() string { return "canI" }
func (e *CanIExpectation) String() string {
	verdict := "yes"
	if !e.Allowed {
		verdict = "no"
	}
	return fmt.Sprintf("canI %s %s as %s in %q: %s", e.Verb, e.Resource, e.User, e.Namespace, verdict)
}

// NodeReadyExpectation: the node's Ready condition is True.
type NodeReadyExpectation struct{ Node string }

func (e *NodeReadyExpectation) Kind() string   { return "nodeReady" }
func (e *NodeReadyExpectation) String() string { return "nodeReady " + e.Node }
