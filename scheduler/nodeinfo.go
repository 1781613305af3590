package scheduler

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Defaults that stand in for a missing request when nodes are scored (not
// when they are filtered): a container without a cpu or memory request
// counts as asking for this much, so that best-effort pods still spread.
// These are kube-scheduler's values.
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// Resources is an amount of the resources the scheduler accounts for.
type Resources struct {
	// MilliCPU is cpu in thousandths of a core.
	MilliCPU int64
	// Memory is in bytes.
	Memory int64
	// Pods is a number of pods: the node's allowed pod count in
	// Allocatable; unused in requests.
	Pods int64
}

func (r *Resources) add(o Resources, sign int64) {
	r.MilliCPU += sign * o.MilliCPU
	r.Memory += sign * o.Memory
}

// resourcesFromList reads cpu, memory and pods from a ResourceList.
func resourcesFromList(l corev1.ResourceList) Resources {
	var r Resources
	if q, ok := l[corev1.ResourceCPU]; ok {
		r.MilliCPU = q.MilliValue()
	}
	if q, ok := l[corev1.ResourceMemory]; ok {
		r.Memory = q.Value()
	}
	if q, ok := l[corev1.ResourcePods]; ok {
		r.Pods = q.Value()
	}
	return r
}

// PodInfo is a pod with its requests worked out once.
type PodInfo struct {
	Pod *corev1.Pod
	// Requests is what the pod asks for (see PodRequests).
	Requests Resources
	// NonZeroRequests is Requests with DefaultMilliCPURequest and
	// DefaultMemoryRequest standing in for containers that request
	// nothing; scoring uses it.
	NonZeroRequests Resources
}

// NewPodInfo returns the PodInfo of pod.
func NewPodInfo(pod *corev1.Pod) *PodInfo {
	return &PodInfo{Pod: pod, Requests: PodRequests(pod, false), NonZeroRequests: PodRequests(pod, true)}
}

// PodRequests returns the cpu and memory a pod needs on a node, computed
// as kube-scheduler (and the kubelet's admission) do:
//
//   - regular containers run together: their requests add up;
//   - init containers run one after another, before them: the pod needs
//     the largest of them at any one time;
//   - restartable init containers (sidecars, restartPolicy: Always) keep
//     running once started: each adds to the regular containers' sum, and
//     an init container that starts after some sidecars needs its own
//     request plus theirs;
//   - so the pod needs max(sum of containers and sidecars, largest init
//     container plus the sidecars started before it);
//   - pod-level requests (spec.resources.requests), where set, replace the
//     containers' figure for that resource;
//   - the pod overhead (spec.overhead, from its RuntimeClass) comes on top.
//
// With nonZero, a container without a cpu or memory request counts as
// requesting DefaultMilliCPURequest or DefaultMemoryRequest, so that pods
// without requests do not look free to the scoring plugins.
func PodRequests(pod *corev1.Pod, nonZero bool) Resources {
	podLevel := podLevelRequestsSet(pod)
	var out Resources
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		// With pod-level requests set, a default applies only to a
		// resource nobody asked for at all.
		def := int64(0)
		if nonZero && (!podLevel || !requestedAnywhere(pod, name)) {
			def = defaultRequest(name)
		}
		v := containerRequests(pod, name, def)
		if podLevel {
			if q, ok := pod.Spec.Resources.Requests[name]; ok {
				v = quantityValue(name, q)
			}
		}
		if q, ok := pod.Spec.Overhead[name]; ok {
			v += quantityValue(name, q)
		}
		switch name {
		case corev1.ResourceCPU:
			out.MilliCPU = v
		case corev1.ResourceMemory:
			out.Memory = v
		}
	}
	return out
}

// containerRequests aggregates the containers' requests of one resource;
// def stands in for a container that does not request it.
func containerRequests(pod *corev1.Pod, name corev1.ResourceName, def int64) int64 {
	get := func(c *corev1.Container) int64 {
		if q, ok := c.Resources.Requests[name]; ok {
			return quantityValue(name, q)
		}
		return def
	}
	var sum int64
	for i := range pod.Spec.Containers {
		sum += get(&pod.Spec.Containers[i])
	}
	var sidecars, initPeak int64
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		v := get(c)
		var inUse int64
		if isSidecar(c) {
			sum += v
			sidecars += v
			inUse = sidecars
		} else {
			inUse = v + sidecars
		}
		initPeak = max(initPeak, inUse)
	}
	return max(sum, initPeak)
}

// isSidecar reports whether an init container is restartable: it starts
// in order with the init containers and then keeps running.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podLevelRequestsSet reports whether spec.resources.requests names a
// resource that may be set at pod level (cpu, memory, huge pages).
func podLevelRequestsSet(pod *corev1.Pod) bool {
	if pod.Spec.Resources == nil {
		return false
	}
	for name := range pod.Spec.Resources.Requests {
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			return true
		}
	}
	return false
}

// requestedAnywhere reports whether any container, the pod-level requests
// or the overhead name the resource.
func requestedAnywhere(pod *corev1.Pod, name corev1.ResourceName) bool {
	has := func(l corev1.ResourceList) bool { _, ok := l[name]; return ok }
	for i := range pod.Spec.Containers {
		if has(pod.Spec.Containers[i].Resources.Requests) {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if has(pod.Spec.InitContainers[i].Resources.Requests) {
			return true
		}
	}
	if pod.Spec.Resources != nil && has(pod.Spec.Resources.Requests) {
		return true
	}
	return has(pod.Spec.Overhead)
}

func defaultRequest(name corev1.ResourceName) int64 {
	if name == corev1.ResourceCPU {
		return DefaultMilliCPURequest
	}
	return DefaultMemoryRequest
}

// quantityValue is cpu in millicores, anything else in units.
func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// NodeInfo is a node together with the pods the scheduler counts on it:
// bound pods, and pods it has assumed there but whose binding it has not
// yet seen. The node may be nil for a while when its pods are known before
// the node (or after it was deleted). Plugins only read a NodeInfo.
type NodeInfo struct {
	node *corev1.Node
	// name is node.Name, kept here: the scheduler reads it for every node
	// of every attempt, and the node object lies elsewhere in memory.
	name string
	// Pods are the pods on the node.
	Pods []*PodInfo
	// Requested is the sum of the pods' Requests.
	Requested Resources
	// NonZeroRequested is the sum of the pods' NonZeroRequests.
	NonZeroRequested Resources
	// Allocatable is what the node offers (status.allocatable: cpu,
	// memory, pods).
	Allocatable Resources
}

// NewNodeInfo returns the NodeInfo of node (which may be nil) with pods.
func NewNodeInfo(node *corev1.Node, pods ...*corev1.Pod) *NodeInfo {
	n := &NodeInfo{}
	if node != nil {
		n.SetNode(node)
	}
	for _, p := range pods {
		n.AddPod(NewPodInfo(p))
	}
	return n
}

// Node returns the node object, or nil.
func (n *NodeInfo) Node() *corev1.Node { return n.node }

// Name returns the node's name ("" without a node).
func (n *NodeInfo) Name() string {
	if n.node == nil {
		return ""
	}
	return n.name
}

// SetNode sets the node object and its allocatable resources.
func (n *NodeInfo) SetNode(node *corev1.Node) {
	n.node = node
	n.name = node.Name
	n.Allocatable = resourcesFromList(node.Status.Allocatable)
}

// AddPod counts p on the node.
func (n *NodeInfo) AddPod(p *PodInfo) {
	n.Pods = append(n.Pods, p)
	n.Requested.add(p.Requests, 1)
	n.NonZeroRequested.add(p.NonZeroRequests, 1)
}

// RemovePod stops counting the pod with p's UID; it reports whether the
// pod was there.
func (n *NodeInfo) RemovePod(p *corev1.Pod) bool {
	for i, pi := range n.Pods {
		if pi.Pod.UID != p.UID {
			continue
		}
		// Keep the order (verdicts and tests read it); copy so that a
		// clone sharing the old array is not disturbed.
		pods := make([]*PodInfo, 0, len(n.Pods)-1)
		pods = append(pods, n.Pods[:i]...)
		n.Pods = append(pods, n.Pods[i+1:]...)
		n.Requested.add(pi.Requests, -1)
		n.NonZeroRequested.add(pi.NonZeroRequests, -1)
		return true
	}
	return false
}

// Clone returns a copy that can be changed without changing n (the node
// and pod objects themselves are shared: they are never modified).
func (n *NodeInfo) Clone() *NodeInfo {
	c := *n
	c.Pods = append([]*PodInfo(nil), n.Pods...)
	return &c
}
