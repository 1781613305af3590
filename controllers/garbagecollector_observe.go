package controllers

import (
	"context"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
)

// queueBecause puts uid on queue, noting as the reason the graph's event
// verb about the object ref (m is that object, nil when it is gone).
func (gc *GarbageCollector) queueBecause(queue workqueue.TypedRateLimitingInterface[types.UID], uid types.UID, verb string, ref objectRef, m metav1.Object) {
	if gc.report != nil {
		t := Trigger{Verb: verb, Object: ObjectRef(ref)}
		if m != nil {
			t.ResourceVersion = m.GetResourceVersion()
		}
		gc.triggers.note(string(uid), t)
	}
	queue.Add(uid)
}

// observed wraps one of the collector's item functions: when report is
// set, an item whose processing decided something is reported as an
// Action of the queue's, its key the UID, with the graph event that
// queued it and the writes made.
func (gc *GarbageCollector) observed(queue string, process func(context.Context, types.UID) error) func(context.Context, types.UID) error {
	if gc.report == nil {
		return process
	}
	return func(ctx context.Context, uid types.UID) error {
		trigger := gc.triggers.take(string(uid))
		var object ObjectRef
		if n, ok := gc.graph.view(uid); ok {
			object = ObjectRef(n.ref)
		}
		ctx, rec := withSyncRecord(ctx)
		rec.meta = Action{Time: time.Now(), Controller: GarbageCollectorName, Queue: queue, Key: string(uid), Object: object,
			Event: trigger, Trigger: trigger.String()}
		err := process(ctx, uid)
		if a, ok := rec.action(); ok {
			gc.report(a)
		}
		return err
	}
}

// ownerNames names owners for a decision: "ReplicaSet web-5d9c7c8f4b".
func ownerNames(owners []metav1.OwnerReference) string {
	names := make([]string, len(owners))
	for i, o := range owners {
		names[i] = o.Kind + " " + o.Name
	}
	return strings.Join(names, ", ")
}
