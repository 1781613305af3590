package cluster

import (
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/internal/flow"
)

// controllerComponent signs the flow events of a controller:
// "kube-controller-manager/replicaset-controller".
func controllerComponent(name string) string { return "kube-controller-manager/" + name }

// controllerObserver records each controller action on rec as a flow
// event with Controller evidence about the object the action's key
// names; an action reported as one object it creates is made (a
// ReplicaSet's pod) is recorded as an event about that object instead,
// its story before stage 1. Record never blocks, so neither does the
// observer; while nobody reads rec, it builds nothing (an event reaches
// only the subscribers of the time it is recorded).
func controllerObserver(rec *flow.Recorder) controllers.Observer {
	return func(a controllers.Action) {
		if !rec.HasReaders() {
			return
		}
		ca := controllerAction(a)
		component := controllerComponent(a.Controller)
		if w := a.Created; w != nil {
			ca.Created = true
			made := flow.ControllerWrite{Resource: w.Resource}
			rec.Record(flow.Event{Component: component, Instance: a.Instance, Time: a.Time, Controller: ca,
				Object:  flow.ObjectRef{APIVersion: createdAPIVersion(made), Kind: createdKind(made), Namespace: w.Namespace, Name: w.Name, UID: w.UID},
				Summary: a.Controller + " created " + w.Resource + " " + w.Namespace + "/" + w.Name})
			return
		}
		rec.Record(flow.Event{Component: component, Instance: a.Instance, Object: objectRef(a.Object), Time: a.Time,
			Summary: a.Controller + " synced " + a.Key, Controller: ca})
	}
}

// controllerAction is a's evidence as flow carries it.
func controllerAction(a controllers.Action) *flow.ControllerAction {
	ca := &flow.ControllerAction{Controller: a.Controller, Queue: a.Queue, Key: a.Key, Object: objectRef(a.Object), Upstream: a.Upstream}
	if t := a.Event; t != nil {
		ca.Trigger = &flow.InformerEvent{Verb: t.Verb, Object: objectRef(t.Object), ResourceVersion: t.ResourceVersion}
	} else {
		ca.TriggerText = a.Trigger
	}
	for _, d := range a.Decisions {
		ca.Decisions = append(ca.Decisions, flow.ControllerDecision{Reason: d.Reason, Target: d.Target,
			Want: d.Want, Have: d.Have, Count: d.Count, From: d.From, To: d.To, Policy: d.Policy})
	}
	if len(a.Decisions) == 0 {
		ca.DecisionText = a.Decision
	}
	for _, w := range a.Calls {
		ca.Writes = append(ca.Writes, flow.ControllerWrite{Method: w.Method, Resource: w.Resource, Subresource: w.Subresource,
			Namespace: w.Namespace, Name: w.Name, UID: w.UID, Code: w.Code, Error: w.Error})
	}
	if len(a.Calls) == 0 {
		ca.WriteLines = a.Writes
	}
	if o := a.Owner; o != nil {
		ca.Owner = &flow.OwnerReference{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID,
			Controller: o.Controller != nil && *o.Controller, BlockOwnerDeletion: o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion}
	}
	return ca
}

func objectRef(o controllers.ObjectRef) flow.ObjectRef {
	return flow.ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, UID: o.UID}
}

// createdKind and createdAPIVersion are those of what the create w
// made: a ReplicaSet's pods, a Deployment's ReplicaSets.
func createdKind(w flow.ControllerWrite) string {
	switch w.Resource {
	case "pods":
		return "Pod"
	case "replicasets":
		return "ReplicaSet"
	}
	return ""
}

func createdAPIVersion(w flow.ControllerWrite) string {
	switch w.Resource {
	case "pods":
		return "v1"
	case "replicasets":
		return "apps/v1"
	}
	return ""
}
