package scheduler

import (
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// schedulerCache is what the scheduler knows about nodes and the pods on
// them: bound pods (from the informer) and assumed pods (placed by the
// scheduler, binding not yet seen).
//
// Assuming is what keeps two pods off room for one: the moment the
// scheduler picks a node, the pod counts there, before the binding is
// written and long before its watch event comes back. A pod's life here:
//
//	AssumePod   chosen a node; counts at once
//	ForgetPod   the binding failed; counts no more
//	AddPod      the bound pod arrived from the informer; an assumed pod
//	            is confirmed (moved if it landed elsewhere)
//	RemovePod   the bound pod was deleted (or finished)
//
// The scheduling loop does not read the cache directly but a snapshot of
// it, refreshed at the start of each attempt (UpdateSnapshot), so that the
// informers can go on while plugins run. Safe for concurrent use.
type schedulerCache struct {
	mu    sync.Mutex
	nodes map[string]*NodeInfo
	pods  map[types.UID]*podState
	// dirty are the nodes changed since the last UpdateSnapshot.
	dirty map[string]struct{}
	// nodeSetChanged is set when a node object appeared or went away, so
	// that the snapshot's node list must be rebuilt.
	nodeSetChanged bool
}

type podState struct {
	pod     *corev1.Pod
	assumed bool
}

func newSchedulerCache() *schedulerCache {
	return &schedulerCache{
		nodes: map[string]*NodeInfo{},
		pods:  map[types.UID]*podState{},
		dirty: map[string]struct{}{},
	}
}

// nodeInfo returns the entry for name, creating it.
func (c *schedulerCache) nodeInfo(name string) *NodeInfo {
	n, ok := c.nodes[name]
	if !ok {
		n = &NodeInfo{}
		c.nodes[name] = n
	}
	c.dirty[name] = struct{}{}
	return n
}

// dropIfEmpty removes the entry for name once it has neither node nor pods.
func (c *schedulerCache) dropIfEmpty(name string) {
	if n, ok := c.nodes[name]; ok && n.node == nil && len(n.Pods) == 0 {
		delete(c.nodes, name)
	}
}

// AddNode records a new node (or a node seen again).
func (c *schedulerCache) AddNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodeInfo(node.Name)
	if n.node == nil {
		c.nodeSetChanged = true
	}
	n.SetNode(node)
}

// UpdateNode records a changed node.
func (c *schedulerCache) UpdateNode(node *corev1.Node) { c.AddNode(node) }

// RemoveNode forgets a node; its pods stay counted until they go too.
func (c *schedulerCache) RemoveNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[node.Name]
	if !ok {
		return
	}
	c.dirty[node.Name] = struct{}{}
	if n.node != nil {
		c.nodeSetChanged = true
	}
	n.node = nil
	n.Allocatable = Resources{}
	c.dropIfEmpty(node.Name)
}

// AssumePod counts pod (whose spec.nodeName is the chosen node) on its
// node until the binding is seen or forgotten.
func (c *schedulerCache) AssumePod(pod *corev1.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[pod.UID]; ok {
		return fmt.Errorf("pod %s/%s (%s) is already in the cache", pod.Namespace, pod.Name, pod.UID)
	}
	c.addLocked(pod, true)
	return nil
}

// ForgetPod undoes AssumePod after a failed binding.
func (c *schedulerCache) ForgetPod(pod *corev1.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[pod.UID]
	if !ok || !ps.assumed {
		return fmt.Errorf("pod %s/%s (%s) is not assumed", pod.Namespace, pod.Name, pod.UID)
	}
	c.removeLocked(ps.pod)
	return nil
}

// AddPod records a bound pod from the informer, confirming it if it was
// assumed.
func (c *schedulerCache) AddPod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.pods[pod.UID]; ok {
		// Confirmed (or seen again): count the object as bound, on the
		// node it is bound to.
		c.removeLocked(ps.pod)
	}
	c.addLocked(pod, false)
}

// UpdatePod records a change to a bound pod.
func (c *schedulerCache) UpdatePod(pod *corev1.Pod) { c.AddPod(pod) }

// RemovePod forgets a bound pod.
func (c *schedulerCache) RemovePod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.pods[pod.UID]; ok {
		c.removeLocked(ps.pod)
	}
}

// IsAssumed reports whether the pod is assumed and not yet confirmed.
func (c *schedulerCache) IsAssumed(uid types.UID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[uid]
	return ok && ps.assumed
}

// HasPod reports whether the pod counts on a node (assumed or bound).
func (c *schedulerCache) HasPod(uid types.UID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pods[uid]
	return ok
}

func (c *schedulerCache) addLocked(pod *corev1.Pod, assumed bool) {
	c.nodeInfo(pod.Spec.NodeName).AddPod(NewPodInfo(pod))
	c.pods[pod.UID] = &podState{pod: pod, assumed: assumed}
}

func (c *schedulerCache) removeLocked(pod *corev1.Pod) {
	name := pod.Spec.NodeName
	if n, ok := c.nodes[name]; ok {
		n.RemovePod(pod)
		c.dirty[name] = struct{}{}
		c.dropIfEmpty(name)
	}
	delete(c.pods, pod.UID)
}

// snapshot is the scheduling loop's copy of the cache: NodeInfos it may
// read without locks while the informers change the cache.
type snapshot struct {
	infos map[string]*NodeInfo
	// nodes are the entries with a node object, by name.
	nodes []*NodeInfo
	pos   map[string]int
}

func newSnapshot() *snapshot {
	return &snapshot{infos: map[string]*NodeInfo{}, pos: map[string]int{}}
}

// UpdateSnapshot brings snap up to date, copying only the nodes that
// changed since the last call. Only one snapshot may be kept up to date
// this way.
func (c *schedulerCache) UpdateSnapshot(snap *snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.dirty {
		n, ok := c.nodes[name]
		if !ok {
			delete(snap.infos, name)
			continue
		}
		clone := n.Clone()
		snap.infos[name] = clone
		if i, ok := snap.pos[name]; ok && !c.nodeSetChanged {
			snap.nodes[i] = clone
		}
	}
	c.clearDirty()
	if c.nodeSetChanged {
		snap.nodes = snap.nodes[:0]
		for _, n := range snap.infos {
			if n.node != nil {
				snap.nodes = append(snap.nodes, n)
			}
		}
		sort.Slice(snap.nodes, func(i, j int) bool { return snap.nodes[i].Name() < snap.nodes[j].Name() })
		clear(snap.pos)
		for i, n := range snap.nodes {
			snap.pos[n.Name()] = i
		}
		c.nodeSetChanged = false
	}
}

// maxKeptDirty is the most dirty entries whose map is cleared for reuse; a
// larger one is replaced. A Go map keeps the room it once needed, and
// ranging over or clearing it costs that room, not its length: the map
// that once held every node (when the nodes were added) would make each
// attempt's UpdateSnapshot go over thousands of empty slots.
const maxKeptDirty = 64

// clearDirty empties c.dirty.
func (c *schedulerCache) clearDirty() {
	if len(c.dirty) > maxKeptDirty {
		c.dirty = map[string]struct{}{}
		return
	}
	clear(c.dirty)
}
