package metricsserver

import (
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The simulated usage model (see the package doc).
const (
	// Resolution is the window of every sample: metrics-server's default
	// --metric-resolution.
	Resolution = 15 * time.Second
	// minCPUShare and maxCPUShare bound the share of its cpu request an
	// idle container uses, in percent: an idle server uses little cpu, so
	// that an HPA's utilization without load is well below any usual
	// target (the HPA walkthrough's php-apache shows 0%/50%).
	minCPUShare, maxCPUShare = 1, 10
	// minMemoryShare and maxMemoryShare bound the share of its memory
	// request a container uses, in percent.
	minMemoryShare, maxMemoryShare = 20, 80
)

var (
	// defaultCPU and defaultMemory stand for the request of a container
	// that has neither request nor limit.
	defaultCPU    = resource.MustParse("100m")
	defaultMemory = resource.MustParse("64Mi")
	// systemCPU and systemMemory are what a node's own processes (the
	// kubelet, the runtime, the OS) use.
	systemCPU    = resource.MustParse("100m")
	systemMemory = resource.MustParse("512Mi")
)

// hash is the FNV-1a hash of namespace/name/container.
func hash(namespace, name, container string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(namespace + "/" + name + "/" + container))
	return h.Sum32()
}

// CPUShare is the percentage (minCPUShare..maxCPUShare-1) of its cpu
// request that the container called container of pod namespace/name uses
// when idle: a hash of the three, so that it is the same on every read.
func CPUShare(namespace, name, container string) int64 {
	return minCPUShare + int64(hash(namespace, name, container)%(maxCPUShare-minCPUShare))
}

// MemoryShare is the percentage (minMemoryShare..maxMemoryShare-1) of its
// memory request that the container uses, derived as CPUShare is.
func MemoryShare(namespace, name, container string) int64 {
	return minMemoryShare + int64(hash(namespace, name, container)%(maxMemoryShare-minMemoryShare))
}

// ContainerUsage returns the simulated idle cpu (nanocores) and memory
// (bytes, a whole number of KiB) usage of container c of pod: its usage
// under no load (Load.ContainerUsage with a nil Load).
func ContainerUsage(pod *corev1.Pod, c *corev1.Container) corev1.ResourceList {
	return Load(nil).ContainerUsage(pod, c)
}

// ContainerUsage returns the simulated usage of container c of pod under
// l: its idle share of its requests, plus the cpu l puts on it.
func (l Load) ContainerUsage(pod *corev1.Pod, c *corev1.Container) corev1.ResourceList {
	cpu := basis(c, corev1.ResourceCPU, defaultCPU)
	mem := basis(c, corev1.ResourceMemory, defaultMemory)
	nanocores := cpu.ScaledValue(resource.Nano)*CPUShare(pod.Namespace, pod.Name, c.Name)/100 + l.on(pod, c.Name)
	kib := mem.Value() * MemoryShare(pod.Namespace, pod.Name, c.Name) / 100 / 1024
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewScaledQuantity(nanocores, resource.Nano),
		corev1.ResourceMemory: *resource.NewQuantity(kib*1024, resource.BinarySI),
	}
}

// basis is what a container's usage of name is a share of: its request,
// else its limit, else def.
func basis(c *corev1.Container, name corev1.ResourceName, def resource.Quantity) resource.Quantity {
	if q, ok := c.Resources.Requests[name]; ok && !q.IsZero() {
		return q
	}
	if q, ok := c.Resources.Limits[name]; ok && !q.IsZero() {
		return q
	}
	return def
}

// RunningContainers returns the containers of pod that have metrics: none
// unless the pod is Running, then those whose status says running.
func RunningContainers(pod *corev1.Pod) []*corev1.Container {
	if pod.Status.Phase != corev1.PodRunning {
		return nil
	}
	running := map[string]bool{}
	for _, s := range pod.Status.ContainerStatuses {
		if s.State.Running != nil {
			running[s.Name] = true
		}
	}
	var out []*corev1.Container
	for i := range pod.Spec.Containers {
		if c := &pod.Spec.Containers[i]; running[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// NodeUsage is the simulated usage of a node running pods (the pods bound
// to it; those without metrics count for nothing): the system's own plus
// every running container's.
func NodeUsage(pods []*corev1.Pod) corev1.ResourceList { return Load(nil).NodeUsage(pods) }

// NodeUsage is the simulated usage of a node running pods under l.
func (l Load) NodeUsage(pods []*corev1.Pod) corev1.ResourceList {
	cpu, mem := systemCPU.DeepCopy(), systemMemory.DeepCopy()
	for _, p := range pods {
		for _, c := range RunningContainers(p) {
			u := l.ContainerUsage(p, c)
			cpu.Add(u[corev1.ResourceCPU])
			mem.Add(u[corev1.ResourceMemory])
		}
	}
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewScaledQuantity(cpu.ScaledValue(resource.Nano), resource.Nano),
		corev1.ResourceMemory: *resource.NewQuantity(mem.Value(), resource.BinarySI),
	}
}

// nodeReady reports whether node's Ready condition is True: metrics-server
// has no metrics for a node whose kubelet it cannot scrape.
func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// window returns the start of the Resolution window now falls in.
func window(now time.Time) time.Time { return now.Truncate(Resolution) }
