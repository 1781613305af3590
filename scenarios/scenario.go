package scenarios

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
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
	// customKinds are the kinds its CustomResourceDefinitions define.
	customKinds map[string]kindInfo
}

// ClusterSpec is the cluster a scenario runs on (see Configure).
type ClusterSpec struct {
	// Nodes are the simulated nodes started with the cluster.
	Nodes []cluster.NodeSpec
	// Scheduler says whether the scheduler runs from the start.
	Scheduler bool
	// Speed is the scenario's speed (simulated delays, pauses and the
	// gate's auto delay are divided by it; 0 removes them).
	Speed float64
	// Topology is TopologySingle (one API server on the embedded etcd)
	// or TopologyHA (cluster.DefaultHAConfig: an etcd cluster of three
	// members and two API servers, formed by cluster.StartHA).
	Topology string
}

// The topologies a scenario's cluster may have.
const (
	TopologySingle = "single"
	TopologyHA     = "ha"
)

// Topologies lists them, as cluster.topology accepts them.
var Topologies = []string{TopologySingle, TopologyHA}

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
	// Server is the API server the action's requests go to, from 1 (0:
	// the first), in a cluster of topology ha.
	Server int
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
	// Question, if not nil, is asked at the step's gate, before its
	// action; the run's evidence answers it after the expectations.
	Question *Question
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
