package scenarios

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

// ObjectSpec names one API object.
type ObjectSpec struct {
	Kind      string
	Name      string
	Namespace string // empty for cluster-scoped kinds
}

// nsName returns name, or namespace/name outside the default namespace.
func nsName(namespace, name string) string {
	if namespace == "" || namespace == DefaultNamespace {
		return name
	}
	return namespace + "/" + name
}

func (o ObjectSpec) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// ApplyAction creates the objects of a manifest, or (Create false) applies
// them as client-side kubectl apply does: created with the
// kubectl.kubernetes.io/last-applied-configuration annotation, or, when
// they exist, patched with a three-way merge patch, so that what other
// writers set is kept and no 409 can come from them. With Create, an
// object that exists is this step's result (409 AlreadyExists), not a
// failure of the run when the step expects a status or message.
type ApplyAction struct {
	// Create makes it a strict create (the `create` key).
	Create bool
	// File is the manifest's path for applyFile, as written.
	File string
	// Objects are the manifest's objects, in order, namespaced ones with
	// their namespace set.
	Objects []*unstructured.Unstructured
}

func (a *ApplyAction) Kind() string {
	switch {
	case a.Create:
		return "create"
	case a.File != "":
		return "applyFile"
	}
	return "apply"
}

func (a *ApplyAction) String() string {
	var names []string
	for _, o := range a.Objects {
		names = append(names, objectOf(o).String())
	}
	verb := "apply"
	if a.Create {
		verb = "create"
	}
	if a.File != "" {
		return fmt.Sprintf("%s -f %s: %s", verb, a.File, strings.Join(names, ", "))
	}
	return verb + " " + strings.Join(names, ", ")
}

func objectOf(o *unstructured.Unstructured) ObjectSpec {
	return ObjectSpec{Kind: o.GetKind(), Name: o.GetName(), Namespace: o.GetNamespace()}
}

// UpdateAction reads an object, changes its labels and annotations and
// writes it back (PUT) with the resourceVersion ResourceVersion says.
type UpdateAction struct {
	Object      ObjectSpec
	Labels      map[string]string
	Annotations map[string]string
	// ResourceVersion is "current" (the one just read; on a 409 the
	// object is read again and the change redone, as
	// retry.RetryOnConflict does), "stale" (an older one this run saw,
	// sent once, so the write gets 409 Conflict) or a number (sent once).
	ResourceVersion string
}

func (a *UpdateAction) Kind() string { return "update" }
func (a *UpdateAction) String() string {
	return fmt.Sprintf("update %s (resourceVersion %s)", a.Object, a.ResourceVersion)
}

// DeleteAction deletes an object; with Wait it waits until it is gone.
type DeleteAction struct {
	Object             ObjectSpec
	GracePeriodSeconds *int64
	Wait               bool
}

func (a *DeleteAction) Kind() string { return "delete" }
func (a *DeleteAction) String() string {
	s := "delete " + a.Object.String()
	if a.GracePeriodSeconds != nil {
		s += fmt.Sprintf(" --grace-period=%d", *a.GracePeriodSeconds)
	}
	if a.Wait {
		s += " --wait"
	}
	return s
}

// PatchAction patches an object (or one of its subresources).
type PatchAction struct {
	Object      ObjectSpec
	Subresource string
	// Type is "strategic", "merge" or "json".
	Type  string
	Patch string
}

func (a *PatchAction) Kind() string { return "patch" }
func (a *PatchAction) String() string {
	target := a.Object.String()
	if a.Subresource != "" {
		target += " (" + a.Subresource + ")"
	}
	return fmt.Sprintf("patch %s --type=%s -p '%s'", target, a.Type, a.Patch)
}

// AddNodeAction starts a kubelet for a new node; it registers its Node.
type AddNodeAction struct{ Node kubelet.NodeSpec }

func (a *AddNodeAction) Kind() string { return "addNode" }
func (a *AddNodeAction) String() string {
	return fmt.Sprintf("add node %s (cpu %s, memory %s, pods %d)", a.Node.Name, a.Node.CPU.String(), a.Node.Memory.String(), a.Node.Pods)
}

// NodeAction is removeNode, stopKubelet or startKubelet of one node.
type NodeAction struct {
	// Verb is "removeNode", "stopKubelet" or "startKubelet".
	Verb string
	Node string
}

func (a *NodeAction) Kind() string   { return a.Verb }
func (a *NodeAction) String() string { return a.Verb + " " + a.Node }

// ControlAction is one of stopScheduler, startScheduler, restartAPIServer
// and compactEtcd.
type ControlAction struct{ Verb string }

func (a *ControlAction) Kind() string   { return a.Verb }
func (a *ControlAction) String() string { return a.Verb }

// HTTP modes and protocols.
const (
	ModeRequest  = "request"
	ModePoll     = "poll"
	ModeLongPoll = "longpoll"
	ModeWatch    = "watch"
	ProtoHTTP1   = "http1"
	ProtoHTTP2   = "http2"
)

// HTTPAction is a raw request against the API server, with the client
// certificate of the step's user.
type HTTPAction struct {
	Method string
	Path   string
	// Mode is ModeRequest, ModePoll, ModeLongPoll or ModeWatch.
	Mode string
	// Proto is ProtoHTTP1 or ProtoHTTP2.
	Proto string
	// Count is the number of polls, long-poll rounds or watch events.
	Count int
	// Interval is the pause between polls, at speed 1.
	Interval    time.Duration
	Body        string
	ContentType string
}

func (a *HTTPAction) Kind() string { return "http" }
func (a *HTTPAction) String() string {
	proto := "HTTP/2"
	if a.Proto == ProtoHTTP1 {
		proto = "HTTP/1.1"
	}
	s := fmt.Sprintf("http %s %s (%s, %s", a.Method, a.Path, a.Mode, proto)
	switch a.Mode {
	case ModePoll:
		s += fmt.Sprintf(", %d requests %s apart", a.Count, a.Interval)
	case ModeLongPoll:
		s += fmt.Sprintf(", %d rounds", a.Count)
	case ModeWatch:
		s += fmt.Sprintf(", %d events", a.Count)
	}
	return s + ")"
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

// kindInfo is what the runner knows about a supported kind.
type kindInfo struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// apiVersion returns the kind's apiVersion ("v1", "rbac.authorization.k8s.io/v1").
func (k kindInfo) apiVersion() string { return k.gvr.GroupVersion().String() }

// kinds are the kinds scenarios may name: a static REST mapping.
var kinds = map[string]kindInfo{
	"Pod":                {schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
	"Node":               {schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false},
	"Namespace":          {schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false},
	"Event":              {schema.GroupVersionResource{Version: "v1", Resource: "events"}, true},
	"Lease":              {schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, true},
	"Role":               {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, true},
	"RoleBinding":        {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, true},
	"ClusterRole":        {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, false},
	"ClusterRoleBinding": {schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, false},
}

// kindNames lists the supported kinds in a fixed order, for messages.
var kindNames = []string{"Pod", "Node", "Namespace", "Event", "Lease", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}
