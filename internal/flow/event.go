package flow

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// ObjectRef names the object an event is about. Events of concurrent
// pods are told apart by UID.
type ObjectRef struct {
	APIVersion string    `json:"apiVersion,omitempty"`
	Kind       string    `json:"kind,omitempty"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name,omitempty"`
	UID        types.UID `json:"uid,omitempty"`
}

// Event is one thing a component observed, with its evidence.
//
// Stage is the stage of the pod's creation the event belongs to, or 0 for
// an event that belongs to none (the trace of any other request, a later
// status write, a runtime action of a restart). For each pod the staged
// events are recorded in stage order: 1 before 2 before 3..., so a reader
// can follow one pod by its Object.UID. (A stage-1 event is recorded
// before the create's etcd write; the whole request's trace comes again,
// with stage 0, when the request ends.)
type Event struct {
	// Seq numbers the events of one Recorder in the order it recorded
	// them, from 1; Record sets it.
	Seq       uint64    `json:"seq"`
	Stage     Stage     `json:"stage"`
	Component string    `json:"component"` // "apiserver", "scheduler", "kubelet/node-1", "gate"
	Object    ObjectRef `json:"object"`
	Time      time.Time `json:"time"`
	Summary   string    `json:"summary"`
	// Instance names which of several instances of Component acted,
	// where several may run side by side: the scheduler's and the
	// controller manager's leader election identity
	// ("kubesim-scheduler-1_<uuid>"). Empty when not said.
	Instance string `json:"instance,omitempty"`

	// Evidence: one of these is set.
	Request    *RequestTrace       `json:"request,omitempty"`
	Etcd       *EtcdWrite          `json:"etcd,omitempty"`
	Watch      *WatchDelivery      `json:"watch,omitempty"`
	Scheduling *SchedulingDecision `json:"scheduling,omitempty"`
	Runtime    *RuntimeAction      `json:"runtime,omitempty"`
	Status     *StatusReport       `json:"status,omitempty"`
	Hold       *Hold               `json:"hold,omitempty"`
	Terminated *WatchTermination   `json:"watchTerminated,omitempty"`
	Controller *ControllerAction   `json:"controller,omitempty"`
}

// EtcdWrite is a write the API server made to etcd (stages 2, 5 and 8).
type EtcdWrite struct {
	// Op is "create", "update" or "delete".
	Op  string `json:"op"`
	Key string `json:"key"`
	// Revision is the write's revision: the object's new resourceVersion.
	Revision int64 `json:"revision"`
	// PrevRevision is the revision of the value it replaced (0 for a
	// create); etcd keeps it in its MVCC history until compaction.
	PrevRevision int64 `json:"prevRevision,omitempty"`
	// Value is the stored value (JSON), as written.
	Value string `json:"value,omitempty"`
	// By is the request the API server was serving when it wrote; nil
	// for the API server's own writes (bootstrap, its controllers).
	By *WriteAuthor `json:"by,omitempty"`
	// Between are the writes to other keys that took the revisions
	// between PrevRevision and Revision, oldest first, as far as the API
	// server made them and still remembers them (for the pods whose
	// stages it tracks); BetweenElsewhere counts
	// the revisions in between it cannot account for (written by etcd
	// itself, as when a lease expires, by another etcd client, or too
	// long ago to remember). Between lists a few writes at most;
	// BetweenMore counts the others the API server made.
	Between          []OtherWrite `json:"between,omitempty"`
	BetweenMore      int64        `json:"betweenMore,omitempty"`
	BetweenElsewhere int64        `json:"betweenElsewhere,omitempty"`
}

// WriteAuthor names the API request an etcd write was made for.
type WriteAuthor struct {
	// User is the authenticated user: admin, system:kube-scheduler,
	// system:node:node-2...
	User      string `json:"user"`
	Method    string `json:"method"`
	URI       string `json:"uri"`
	UserAgent string `json:"userAgent,omitempty"`
	AuditID   string `json:"auditID,omitempty"`
}

// OtherWrite is a write to another key, made between two writes of an
// object whose evidence is shown.
type OtherWrite struct {
	Revision int64  `json:"revision"`
	Op       string `json:"op"` // create, update, delete
	Key      string `json:"key"`
	// User is who asked for it ("" for the API server's own writes).
	User string `json:"user,omitempty"`
}

// WatchDelivery is one watch event the API server wrote to a watcher's
// connection (stages 3 and 6).
type WatchDelivery struct {
	// User is the watcher: system:kube-scheduler, system:node:node-1...
	User string `json:"user"`
	// URI is the watch request, e.g.
	// "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&watch=true".
	URI   string `json:"uri"`
	Proto string `json:"proto"` // "HTTP/1.1", "HTTP/2.0"
	// ContentType is the stream's media type.
	ContentType string `json:"contentType"`
	// Type and ResourceVersion are the watch event's.
	Type            string `json:"type"`
	ResourceVersion string `json:"resourceVersion"`
	// Frame is the exact bytes written for the event: a JSON line, or a
	// length-prefixed protobuf frame. The HTTP layer then sends it as one
	// HTTP/1.1 chunk (its size in hex, CRLF, the bytes, CRLF) or in
	// HTTP/2 DATA frames.
	Frame []byte `json:"frame"`
}

// WatchTermination is a watcher the API server's watch cache gave up on
// because its buffer stayed full (its client did not read): the figures
// the cache had then. Its stream ends once the events already made are
// written; the client watches again from the last resourceVersion it read.
type WatchTermination struct {
	// User, URI, Proto and AuditID name the watch request.
	User    string `json:"user"`
	URI     string `json:"uri"`
	Proto   string `json:"proto"`
	AuditID string `json:"auditID,omitempty"`
	// BufferSize is the capacity of the cache's buffer for the watcher,
	// Queued the changes it held (discarded); ResultSize and ResultQueued
	// the same for the watcher's events not yet written (still sent).
	BufferSize   int `json:"bufferSize"`
	Queued       int `json:"queued"`
	ResultSize   int `json:"resultSize"`
	ResultQueued int `json:"resultQueued"`
	// LastQueued is the resourceVersion of the last change the buffer
	// took, GaveUpAt that of the change it had no room for.
	LastQueued int64 `json:"lastQueued"`
	GaveUpAt   int64 `json:"gaveUpAt"`
	// Waited is how long the cache waited for room before it gave up.
	Waited time.Duration `json:"waited"`
}

// Hold says that the system is held at a boundary (Released false), or
// that it went on (Released true). See Gate.
type Hold struct {
	Boundary Boundary `json:"boundary"`
	Released bool     `json:"released"`
}

// SchedulingDecision is what the scheduler decided for one pod (stage 4):
// every node's filter verdict and, for the feasible ones, each scoring
// plugin's score.
type SchedulingDecision struct {
	// Attempt counts the scheduling attempts for this pod, from 1.
	Attempt int `json:"attempt"`
	// Nodes holds one verdict per node, in name order.
	Nodes []NodeVerdict `json:"nodes"`
	// Chosen is the node the pod is bound to; empty when none fits.
	Chosen string `json:"chosen,omitempty"`
	// Tied lists, by name, the nodes that shared the highest total when
	// more than one did: kube-scheduler picks one of them at random
	// (Chosen is that one).
	Tied []string `json:"tied,omitempty"`
	// Message is the FailedScheduling message when no node fits, e.g.
	// "0/3 nodes are available: 3 Insufficient cpu. ...".
	Message string `json:"message,omitempty"`
	// Preemption is what the DefaultPreemption PostFilter found when no
	// node fits and the pod may preempt: the nodes where evicting
	// lower-priority pods makes room, and the one chosen.
	Preemption *PreemptionVerdict `json:"preemption,omitempty"`
}

// PreemptionVerdict is the scheduler's preemption for one attempt.
type PreemptionVerdict struct {
	// Node is the node the pod is nominated to, its victims evicted;
	// empty when preemption helps nowhere.
	Node string `json:"node,omitempty"`
	// Rule is the rule that chose Node among the candidates
	// ("fewest victims"...).
	Rule string `json:"rule,omitempty"`
	// Candidates are the nodes where preemption helps, in name order.
	Candidates []PreemptionCandidate `json:"candidates,omitempty"`
}

// PreemptionCandidate is a node where evicting Victims ("ns/name
// (priority N)", most important first) lets the pod fit; PDBViolations
// of them go against a PodDisruptionBudget.
type PreemptionCandidate struct {
	Node          string   `json:"node"`
	Victims       []string `json:"victims"`
	PDBViolations int      `json:"pdbViolations,omitempty"`
}

// NodeVerdict is the scheduler's verdict on one node for one pod.
type NodeVerdict struct {
	Node     string `json:"node"`
	Feasible bool   `json:"feasible"`
	// FailedPlugin is the filter plugin that rejected the node, and
	// Reasons what it said ("Insufficient cpu").
	FailedPlugin string   `json:"failedPlugin,omitempty"`
	Reasons      []string `json:"reasons,omitempty"`
	// Scores are the normalized (0-100) scores of each scoring plugin,
	// and Total their weighted sum.
	Scores []PluginScore `json:"scores,omitempty"`
	Total  int64         `json:"total,omitempty"`
}

// PluginScore is one scoring plugin's normalized score for a node.
type PluginScore struct {
	Plugin string `json:"plugin"`
	Score  int64  `json:"score"`
	Weight int64  `json:"weight"`
}

// RuntimeAction is one thing the fake container runtime did (stage 6).
type RuntimeAction struct {
	// Action is "pull", "create", "start", "kill" or "exit".
	Action    string        `json:"action"`
	Container string        `json:"container"`
	Image     string        `json:"image,omitempty"`
	Duration  time.Duration `json:"duration"`
	// Result is "ok", or what went wrong ("ErrImagePull", "exit code 1").
	Result string `json:"result"`
}

// StatusReport is a status update a kubelet sent for a pod (stage 7).
type StatusReport struct {
	// User is the kubelet's identity, system:node:<name>.
	User string `json:"user"`
	// Patch is the body as sent (a strategic merge patch of the status).
	Patch string `json:"patch"`
	// Phase is the pod phase the patch reports.
	Phase string `json:"phase"`
}

// RequestTrace is the life of one API request, step by step, as the API
// server saw it.
type RequestTrace struct {
	AuditID    string   `json:"auditID"`
	Method     string   `json:"method"`
	URI        string   `json:"uri"`
	Proto      string   `json:"proto"` // "HTTP/1.1", "HTTP/2.0"
	RemoteAddr string   `json:"remoteAddr"`
	UserAgent  string   `json:"userAgent,omitempty"`
	User       string   `json:"user,omitempty"`
	Groups     []string `json:"groups,omitempty"`
	Verb       string   `json:"verb,omitempty"`
	// Route is the go-restful route template that matched, e.g.
	// "POST /api/v1/namespaces/{namespace}/pods".
	Route     string        `json:"route,omitempty"`
	Code      int           `json:"code"`
	BytesSent int64         `json:"bytesSent"`
	Duration  time.Duration `json:"duration"`
	Steps     []Step        `json:"steps"`
}

// Step is one step of a request, in the order they happened.
type Step struct {
	// Name is the step: received, goroutine, authenticated, authorized,
	// dispatched, decoded, admission, stored, responded...
	Name string `json:"name"`
	// At is the time since the request was received.
	At time.Duration `json:"at"`
	// Outcome is "ok", "failed", "allowed", "denied", "defaulted",
	// "passed", "rejected"...
	Outcome string `json:"outcome,omitempty"`
	// Detail says what happened, for people.
	Detail string `json:"detail,omitempty"`
	// Fields holds the facts behind Detail (user, route, key, revision...).
	Fields map[string]string `json:"fields,omitempty"`
}
