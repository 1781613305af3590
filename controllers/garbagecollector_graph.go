package controllers

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// objectRef names one object of the graph.
type objectRef struct {
	APIVersion, Kind, Namespace, Name string
	UID                               types.UID
}

// graphNode is one object (or, virtual, an owner named by a dependent
// but not seen by an informer yet) with the ownerReferences it holds and
// the objects that name it as owner.
type graphNode struct {
	ref        objectRef
	owners     []metav1.OwnerReference
	dependents map[types.UID]*graphNode
	virtual    bool
	// beingDeleted: deletionTimestamp set; deletingDependents: and the
	// foregroundDeletion finalizer.
	beingDeleted, deletingDependents bool
}

// ownerGraph is the garbage collector's graph, fed by informer events
// (from every resource's informer goroutine: mu serializes them), as
// upstream's GraphBuilder. It puts on the collector's queues what the
// events make worth a look.
type ownerGraph struct {
	mu    sync.Mutex
	nodes map[types.UID]*graphNode
	gc    *GarbageCollector
}

func newOwnerGraph(gc *GarbageCollector) *ownerGraph {
	return &ownerGraph{nodes: map[types.UID]*graphNode{}, gc: gc}
}

// handlers are the graph's handlers for an informer of objects of kind
// gvk: the informer's objects do not say their kind (a typed informer's
// have no TypeMeta, a metadata informer's say PartialObjectMetadata), so
// it is the discovered one, as upstream's graph builder takes it from the
// monitor of each resource.
func (g *ownerGraph) handlers(gvk schema.GroupVersionKind) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { g.observe(obj, gvk, false) },
		UpdateFunc: func(_, obj any) { g.observe(obj, gvk, false) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			g.observe(obj, gvk, true)
		},
	}
}

// observe records an object of kind gvk added, changed or deleted.
func (g *ownerGraph) observe(obj any, gvk schema.GroupVersionKind, deleted bool) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	ref := objectRef{APIVersion: apiVersion, Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID()}
	g.mu.Lock()
	defer g.mu.Unlock()
	if deleted {
		g.remove(ref.UID)
		return
	}
	n, ok := g.nodes[ref.UID]
	if !ok {
		n = &graphNode{ref: ref, dependents: map[types.UID]*graphNode{}}
		g.nodes[ref.UID] = n
	}
	n.ref, n.virtual = ref, false
	g.setOwners(n, m.GetOwnerReferences())
	g.transitions(n, m)
}

// setOwners links n to its owners, a virtual node for one not seen yet
// (the collector checks whether it exists); an owner n no longer names
// that waits for its dependents gets another look.
func (g *ownerGraph) setOwners(n *graphNode, owners []metav1.OwnerReference) {
	for _, old := range n.owners {
		if slices.ContainsFunc(owners, func(o metav1.OwnerReference) bool { return o.UID == old.UID && blocks(o) == blocks(old) }) {
			continue
		}
		if owner, ok := g.nodes[old.UID]; ok {
			if !slices.ContainsFunc(owners, func(o metav1.OwnerReference) bool { return o.UID == old.UID }) {
				delete(owner.dependents, n.ref.UID)
			}
			if owner.deletingDependents {
				g.gc.attemptToDelete.Add(owner.ref.UID)
			}
		}
	}
	for _, o := range owners {
		owner, ok := g.nodes[o.UID]
		if !ok {
			owner = &graphNode{ref: objectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: n.ref.Namespace, Name: o.Name, UID: o.UID},
				dependents: map[types.UID]*graphNode{}, virtual: true}
			g.nodes[o.UID] = owner
			g.gc.attemptToDelete.Add(o.UID)
		}
		owner.dependents[n.ref.UID] = n
	}
	n.owners = slices.Clone(owners)
}

// transitions queues the work a deletion in progress asks for: orphan
// finalizer → orphan the dependents; foregroundDeletion → delete the
// dependents, then the owner's finalizer.
func (g *ownerGraph) transitions(n *graphNode, m metav1.Object) {
	n.beingDeleted = m.GetDeletionTimestamp() != nil
	n.deletingDependents = n.beingDeleted && slices.Contains(m.GetFinalizers(), metav1.FinalizerDeleteDependents)
	if n.beingDeleted && slices.Contains(m.GetFinalizers(), metav1.FinalizerOrphanDependents) {
		g.gc.queueBecause(g.gc.attemptToOrphan, n.ref.UID, "update", n.ref, m)
	}
	if n.deletingDependents {
		for _, d := range n.dependents {
			g.gc.queueBecause(g.gc.attemptToDelete, d.ref.UID, "update", n.ref, m)
		}
		g.gc.queueBecause(g.gc.attemptToDelete, n.ref.UID, "update", n.ref, m)
	}
}

// remove takes the object of uid out of the graph: its dependents get a
// look (their owner is gone), and so do its owners waiting for their
// dependents. g.mu is held.
func (g *ownerGraph) remove(uid types.UID) {
	n, ok := g.nodes[uid]
	if !ok {
		return
	}
	delete(g.nodes, uid)
	for _, o := range n.owners {
		if owner, ok := g.nodes[o.UID]; ok {
			delete(owner.dependents, uid)
			if owner.deletingDependents {
				g.gc.attemptToDelete.Add(owner.ref.UID)
			}
		}
	}
	for _, d := range n.dependents {
		g.gc.queueBecause(g.gc.attemptToDelete, d.ref.UID, "delete", n.ref, nil)
	}
}

// removeVirtual drops a virtual node found not to exist, as if its
// deletion had been seen.
func (g *ownerGraph) removeVirtual(uid types.UID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n, ok := g.nodes[uid]; ok && n.virtual {
		g.remove(uid)
	}
}

// nodeView is a copy of a node, safe to read without the graph's lock.
type nodeView struct {
	ref                              objectRef
	virtual                          bool
	beingDeleted, deletingDependents bool
	dependents                       []nodeView // with their own dependents left out
	blocking                         []nodeView // the dependents that block it
}

// view returns a copy of uid's node, or false.
func (g *ownerGraph) view(uid types.UID) (nodeView, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return nodeView{}, false
	}
	v := flatView(n)
	for _, d := range n.dependents {
		dv := flatView(d)
		v.dependents = append(v.dependents, dv)
		if slices.ContainsFunc(d.owners, func(o metav1.OwnerReference) bool { return o.UID == uid && blocks(o) }) {
			v.blocking = append(v.blocking, dv)
		}
	}
	return v, true
}

func flatView(n *graphNode) nodeView {
	return nodeView{ref: n.ref, virtual: n.virtual, beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents}
}

// blocks reports whether the ownerReference has blockOwnerDeletion.
func blocks(o metav1.OwnerReference) bool {
	return o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion
}
