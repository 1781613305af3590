package controllers

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// Action is one sync of a workqueue key in which a controller decided to
// act, with the evidence of why: the informer event that put the key on
// its workqueue, the key, what it saw against what it wanted, and the
// writes it made. kubesim shows these before a pod's first stage;
// upstream's controllers log the same facts (replicaset-controller's
// "Too few replicas" with need and creating, at verbosity 2) or record
// them as Events (the deployment controller's ScalingReplicaSet). A sync
// that only wrote a status is not reported.
type Action struct {
	// Time is when the sync began, before its writes.
	Time time.Time
	// Controller is the controller's name ("replicaset-controller").
	Controller string
	// Trigger is the informer event that queued Key last, for example
	// "update ReplicaSet default/web-5d9c7c8f4b"; empty for a resync.
	// (A controller that reports Event sets it from Event.)
	Trigger string
	// Key is the workqueue key synced ("default/web-5d9c7c8f4b"; the
	// garbage collector's are UIDs).
	Key string
	// Decision is what the controller saw and did, for example
	// "wanted 3, saw 2: creating 1", in English; Decisions, when set,
	// say it with figures, in both languages.
	Decision string
	// Writes are the API calls made, one line each, for example
	// "POST pods default/web-5d9c7c8f4b-x7k2p → 201"; Calls, when set,
	// are the same with their parts.
	Writes []string

	// Queue is the workqueue's name ("replicaset").
	Queue string
	// Event is the informer event that queued Key last; nil for a
	// resync, a retry or a key queued after a delay.
	Event *Trigger
	// Object is what the key names.
	Object ObjectRef
	// Decisions are what the controller saw and decided, in order.
	Decisions []Decision
	// Calls are the API calls it made, in the order they were sent.
	Calls []Write
	// Owner is the ownerReference the objects created carry (a
	// ReplicaSet's pods), if any.
	Owner *metav1.OwnerReference
	// Created is set when the action is reported as soon as one object
	// it creates is made, before the sync ends (a ReplicaSet's pods come
	// in slow-start batches, and the next batch may wait): the write of
	// that object; Calls are then those answered so far. (A sync that
	// decides after its writes, the endpointslice controller's, reports
	// its creations once it has decided, with the same Calls.) The whole
	// action is reported again, without Created, when the sync ends.
	Created *Write
	// Instance is the manager's Config.Identity: which of several
	// controller managers acted.
	Instance string
	// Upstream says the controller is upstream's own code (upstream.go):
	// the action is one write it sent, Key and Object what it wrote; its
	// workqueue key, trigger and decisions are not known.
	Upstream bool
}

// ObjectRef names an object.
type ObjectRef struct {
	APIVersion, Kind, Namespace, Name string
	UID                               types.UID
}

// Trigger is an informer event: what the controller's event handler was
// told.
type Trigger struct {
	// Verb is "add", "update" or "delete" (the handler called).
	Verb string
	// Object is the object of the event; ResourceVersion its version.
	Object          ObjectRef
	ResourceVersion string
}

// The decisions a controller reports (Decision.Reason): flow's names,
// which its layout says in both languages.
const (
	// DecisionTooFewReplicas: a ReplicaSet has fewer pods than it wants;
	// Want, Have and Count (the pods it creates, at most BurstReplicas).
	DecisionTooFewReplicas = flow.DecisionTooFewReplicas
	// DecisionTooManyReplicas: more pods than wanted; Count it deletes.
	DecisionTooManyReplicas = flow.DecisionTooManyReplicas
	// DecisionNewReplicaSet: a Deployment's template has no ReplicaSet
	// yet; Target is the one created, To its replicas.
	DecisionNewReplicaSet = flow.DecisionNewReplicaSet
	// DecisionScaleUp, DecisionScaleDown: a ReplicaSet of a Deployment
	// scaled (Target) From → To.
	DecisionScaleUp   = flow.DecisionScaleUp
	DecisionScaleDown = flow.DecisionScaleDown
	// DecisionDeleteOldReplicaSet: beyond revisionHistoryLimit (Want),
	// the oldest ReplicaSet with no replicas goes (Target).
	DecisionDeleteOldReplicaSet = flow.DecisionDeleteOldReplicaSet
	// DecisionOwnerGone: none of an object's owners is left (Target names
	// the owners); it is deleted with Policy.
	DecisionOwnerGone = flow.DecisionOwnerGone
	// DecisionOwnerDeletingDependents: an owner deletes its dependents in
	// the foreground and the object has dependents of its own: deleted
	// with Policy Foreground.
	DecisionOwnerDeletingDependents = flow.DecisionOwnerDeletingDependents
	// DecisionDependentsGone: an owner deleted in the foreground has no
	// blocking dependent left; its finalizer (Target) is removed.
	DecisionDependentsGone = flow.DecisionDependentsGone
	// DecisionOrphan: an owner deleted with the orphan finalizer; its
	// dependents (Count) lose their ownerReference, then the finalizer.
	DecisionOrphan = flow.DecisionOrphan
)

// Decision is one thing a controller decided, with its figures. Which
// fields are set depends on Reason (see the Decision constants).
type Decision struct {
	Reason            string
	Target            string
	Want, Have, Count int32
	From, To          int32
	Policy            string
}

// Write is one API call a controller made.
type Write struct {
	// Method is the HTTP method: POST, PUT, PATCH, DELETE.
	Method string
	// Resource and Subresource are from the request's path ("pods",
	// "status"); Namespace and Name too, or, for a create, from the
	// object the API server returned.
	Resource, Subresource, Namespace, Name string
	// UID is the object's, when the controller knows it (a create).
	UID types.UID
	// Code is the HTTP status of the answer; 0 when none came (Error).
	Code  int
	Error string
	// slot: a write whose creator notes what it created (writeSlot).
	slot bool
}

// Observer receives the controllers' actions; it must not block.
type Observer func(Action)

// observe hands a to c.Observer, if any, stamped with the time.
func (c *Config) observe(a Action) {
	if c.Observer == nil {
		return
	}
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	a.Instance = c.Identity
	c.Observer(a)
}

// triggers remembers, per workqueue key, the informer event that queued
// it last, so that the sync that follows can say why it ran.
type triggers struct {
	mu   sync.Mutex
	last map[string]string
}

// note records event as the reason key was queued.
func (t *triggers) note(key, event string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[string]string{}
	}
	t.last[key] = event
}

// take returns and forgets the event that queued key ("" if none did:
// a resync or a retry).
func (t *triggers) take(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.last[key]
	delete(t.last, key)
	return e
}

// eventTriggers is triggers with the events' parts (Action.Event).
type eventTriggers struct {
	mu   sync.Mutex
	last map[string]Trigger
}

// note records event as the reason key was queued.
func (t *eventTriggers) note(key string, event Trigger) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[string]Trigger{}
	}
	t.last[key] = event
}

// take returns and forgets the event that queued key (nil if none did).
func (t *eventTriggers) take(key string) *Trigger {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.last[key]
	if !ok {
		return nil
	}
	delete(t.last, key)
	return &e
}

// String is the event as Action.Trigger says it: "update ReplicaSet
// default/web-5d9c7c8f4b".
func (t *Trigger) String() string {
	if t == nil {
		return ""
	}
	name := t.Object.Name
	if t.Object.Namespace != "" {
		name = t.Object.Namespace + "/" + name
	}
	return t.Verb + " " + t.Object.Kind + " " + name
}

// triggerOf is the informer event verb about obj.
func triggerOf(verb string, obj metav1.Object, apiVersion, kind string) Trigger {
	return Trigger{Verb: verb, ResourceVersion: obj.GetResourceVersion(), Object: ObjectRef{
		APIVersion: apiVersion, Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID()}}
}

// syncRecord collects what one sync decided and wrote. The sync's
// context carries it (withSyncRecord): the decisions are added where
// they are made, the writes by the controller's transport
// (recordWrites). Safe for concurrent use (a sync's creates run at once).
type syncRecord struct {
	mu        sync.Mutex
	decisions []Decision
	writes    []*Write
	owner     *metav1.OwnerReference
	// meta is the sync's Action before its decisions and writes, and
	// report where each creation is reported as it is made (nil: not).
	meta   Action
	report func(Action)
	// held: creations are kept in pending until releaseCreations
	// (holdCreations).
	held    bool
	pending []heldCreation
}

// heldCreation is a creation noted while the record held them: the
// write that made it and the writes answered by then.
type heldCreation struct {
	created Write
	writes  []*Write
}

type syncRecordKey struct{}

// withSyncRecord returns ctx carrying a new record.
func withSyncRecord(ctx context.Context) (context.Context, *syncRecord) {
	r := &syncRecord{}
	return context.WithValue(ctx, syncRecordKey{}, r), r
}

// recordOf returns the record ctx carries, or nil.
func recordOf(ctx context.Context) *syncRecord {
	r, _ := ctx.Value(syncRecordKey{}).(*syncRecord)
	return r
}

// decide adds d to the record ctx carries, if any.
func decide(ctx context.Context, d Decision) {
	if r := recordOf(ctx); r != nil {
		r.mu.Lock()
		r.decisions = append(r.decisions, d)
		r.mu.Unlock()
	}
}

// ownedBy notes the ownerReference the sync's creates carry.
func ownedBy(ctx context.Context, ref *metav1.OwnerReference) {
	if r := recordOf(ctx); r != nil && ref != nil {
		r.mu.Lock()
		r.owner = ref.DeepCopy()
		r.mu.Unlock()
	}
}

// addWrite appends w to the record and returns it, for the transport to
// fill in.
func (r *syncRecord) addWrite(w *Write) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, w)
}

// noteCreated notes the name and UID of an object a write of ctx (a
// writeSlot) created.
func noteCreated(ctx context.Context, obj metav1.Object) {
	w, _ := ctx.Value(writeSlotKey{}).(*Write)
	r := recordOf(ctx)
	if w == nil || r == nil || obj == nil {
		return
	}
	r.mu.Lock()
	w.Name, w.UID = obj.GetName(), obj.GetUID()
	done := *w
	if r.held {
		r.pending = append(r.pending, heldCreation{created: done, writes: slices.Clone(r.writes)})
	}
	held := r.held
	r.mu.Unlock()
	if r.report == nil || held {
		return
	}
	if a, ok := r.action(); ok {
		a.Created = &done
		r.report(a)
	}
}

type writeSlotKey struct{}

// writeSlot returns ctx for one API call whose Write the caller wants to
// complete (noteCreated): the transport fills the slot instead of adding a
// Write of its own.
func writeSlot(ctx context.Context) context.Context {
	if recordOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, writeSlotKey{}, &Write{slot: true})
}

// holdCreations makes the record of ctx, if any, keep the creations
// noted from now on (noteCreated) instead of reporting each at once, for a
// sync that decides only after its writes; releaseCreations reports them.
func holdCreations(ctx context.Context) {
	if r := recordOf(ctx); r != nil {
		r.mu.Lock()
		r.held = true
		r.mu.Unlock()
	}
}

// releaseCreations reports the creations held in the record of ctx, if
// any, once the sync's decisions are in: each as noteCreated would have
// reported it had the decisions come first, with the writes answered when
// it was made. It stops holding. Call it before the sync's own report.
func releaseCreations(ctx context.Context) {
	r := recordOf(ctx)
	if r == nil {
		return
	}
	r.mu.Lock()
	var out []Action
	for _, p := range r.pending {
		if a, ok := r.actionOf(p.writes); ok {
			a.Created = &p.created
			out = append(out, a)
		}
	}
	r.held, r.pending = false, nil
	r.mu.Unlock()
	if r.report == nil {
		return
	}
	for _, a := range out {
		r.report(a)
	}
}

// action returns what r holds as an Action, and whether there is
// anything to report: a sync with no decision is not one.
func (r *syncRecord) action() (Action, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.actionOf(r.writes)
}

// actionOf is action with writes as the calls made; r.mu is held.
func (r *syncRecord) actionOf(writes []*Write) (Action, bool) {
	if len(r.decisions) == 0 {
		return Action{}, false
	}
	a := r.meta
	a.Decisions, a.Owner = append([]Decision(nil), r.decisions...), r.owner
	for _, w := range writes {
		if w.slot && w.Name == "" && w.Code/100 == 2 {
			continue // made, but its creator has not noted it yet
		}
		a.Calls = append(a.Calls, *w)
		a.Writes = append(a.Writes, w.String())
	}
	return a, true
}

// observedSync wraps a controller's sync: it takes the key's trigger,
// gives the sync a record, and reports an Action when the sync decided
// something. object names what the key names.
func (c *Config) observedSync(controller, queue string, t *eventTriggers, object func(key string) ObjectRef,
	sync func(context.Context, string) error) func(context.Context, string) error {
	if c.Observer == nil {
		return sync
	}
	return func(ctx context.Context, key string) error {
		trigger := t.take(key)
		ctx, rec := withSyncRecord(ctx)
		rec.meta = Action{Time: time.Now(), Controller: controller, Queue: queue, Event: trigger, Trigger: trigger.String(),
			Key: key, Object: object(key)}
		rec.report = c.observe
		err := sync(ctx, key)
		if a, ok := rec.action(); ok {
			c.observe(a)
		}
		return err
	}
}

// namespacedObject is the object func of a controller whose keys are
// namespace/name of one kind.
func namespacedObject(apiVersion, kind string) func(string) ObjectRef {
	return func(key string) ObjectRef {
		ns, name, _ := splitKey(key)
		return ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name}
	}
}

// String is the write as Action.Writes says it: "POST pods
// default/web-5d9c7c8f4b-x7k2p → 201".
func (w Write) String() string {
	res := w.Resource
	if w.Subresource != "" {
		res += "/" + w.Subresource
	}
	name := w.Name
	if w.Namespace != "" {
		name = w.Namespace + "/" + name
	}
	out := w.Method + " " + res + " " + name + " → "
	if w.Error != "" {
		return out + w.Error
	}
	return out + strconv.Itoa(w.Code)
}
