package flow

import "k8s.io/apimachinery/pkg/types"

// ControllerAction is one sync of a controller of the controller manager
// that decided to act (Event.Controller): the informer event that put
// the key on its workqueue, the key, what it saw and decided, the writes
// it made. It is recorded twice over: once about the object the key
// names (a ReplicaSet), and, for each object the sync created, once
// about that object (Created true, Event.Object the pod): that event is
// the pod's story before its stage 1, who created it and why.
type ControllerAction struct {
	// Controller is the controller's name: replicaset-controller,
	// deployment-controller, generic-garbage-collector...
	Controller string `json:"controller"`
	// Queue is its workqueue's name; Key the key it synced (the garbage
	// collector's are UIDs).
	Queue string `json:"queue,omitempty"`
	Key   string `json:"key"`
	// Object is what the key names.
	Object ObjectRef `json:"object"`
	// Trigger is the informer event that queued the key last; nil for a
	// resync, a retry or a key queued after a delay. TriggerText says
	// the same in a line, for a controller that gives only that.
	Trigger     *InformerEvent `json:"trigger,omitempty"`
	TriggerText string         `json:"triggerText,omitempty"`
	// Decisions are what the controller saw and decided, with figures;
	// DecisionText, for a controller that gives only a line (English).
	Decisions    []ControllerDecision `json:"decisions,omitempty"`
	DecisionText string               `json:"decisionText,omitempty"`
	// Writes are the API calls made, in the order they were sent;
	// WriteLines, for a controller that gives only lines.
	Writes     []ControllerWrite `json:"writes,omitempty"`
	WriteLines []string          `json:"writeLines,omitempty"`
	// Owner is the ownerReference the objects it created carry.
	Owner *OwnerReference `json:"ownerReference,omitempty"`
	// Created says the event is about one object the sync created
	// (Event.Object), not about Object.
	Created bool `json:"created,omitempty"`
	// Upstream says the controller is upstream's own code, which kubesim
	// runs without seeing inside: the action is one write it sent (Key
	// and Object name what was written), with no workqueue key, trigger
	// or decision known.
	Upstream bool `json:"upstream,omitempty"`
}

// InformerEvent is what a controller's informer told its event handler.
type InformerEvent struct {
	// Verb is "add", "update" or "delete".
	Verb            string    `json:"verb"`
	Object          ObjectRef `json:"object"`
	ResourceVersion string    `json:"resourceVersion,omitempty"`
}

// The reasons of a ControllerDecision, as the controllers package names
// them; the layout says each in both languages.
const (
	DecisionTooFewReplicas          = "too-few-replicas"
	DecisionTooManyReplicas         = "too-many-replicas"
	DecisionNewReplicaSet           = "new-replicaset"
	DecisionScaleUp                 = "scale-up"
	DecisionScaleDown               = "scale-down"
	DecisionDeleteOldReplicaSet     = "delete-old-replicaset"
	DecisionOwnerGone               = "owner-gone"
	DecisionOwnerDeletingDependents = "owner-deleting-dependents"
	DecisionDependentsGone          = "dependents-gone"
	DecisionOrphan                  = "orphan-dependents"
	// The endpoints and endpointslice controllers': Target the Service,
	// Want the addresses (endpoints), Have the ready ones, Count the
	// slices written.
	DecisionEndpointsChanged      = "endpoints-changed"
	DecisionEndpointSlicesChanged = "endpointslices-changed"
)

// ControllerDecision is one thing a controller decided, with its
// figures; which are set depends on Reason.
type ControllerDecision struct {
	Reason string `json:"reason"`
	// Target is the object acted on (a ReplicaSet's name), the owners,
	// or a finalizer.
	Target string `json:"target,omitempty"`
	Want   int32  `json:"want,omitempty"`
	Have   int32  `json:"have,omitempty"`
	Count  int32  `json:"count,omitempty"`
	From   int32  `json:"from,omitempty"`
	To     int32  `json:"to,omitempty"`
	Policy string `json:"policy,omitempty"`
}

// ControllerWrite is one API call a controller made and its answer.
type ControllerWrite struct {
	Method      string    `json:"method"`
	Resource    string    `json:"resource"`
	Subresource string    `json:"subresource,omitempty"`
	Namespace   string    `json:"namespace,omitempty"`
	Name        string    `json:"name,omitempty"`
	UID         types.UID `json:"uid,omitempty"`
	// Code is the HTTP status; 0 with Error when no answer came.
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
}

// OwnerReference is an ownerReference as a created object carries it.
type OwnerReference struct {
	APIVersion         string    `json:"apiVersion"`
	Kind               string    `json:"kind"`
	Name               string    `json:"name"`
	UID                types.UID `json:"uid"`
	Controller         bool      `json:"controller"`
	BlockOwnerDeletion bool      `json:"blockOwnerDeletion"`
}

// CreatorOf returns the controller action of e when e tells who created
// its object (a pod's story before stage 1), else nil.
func CreatorOf(e Event) *ControllerAction {
	if e.Controller != nil && e.Controller.Created {
		return e.Controller
	}
	return nil
}
