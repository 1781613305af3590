package kubelet

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/kubesim/kubesim/internal/flow"
)

// Defaults used by DefaultNodes and NewConfig.
const (
	// DefaultPods is the pod capacity of a node (the kubelet's maxPods).
	DefaultPods = 110
	// DefaultSpeed runs the simulated delays as written.
	DefaultSpeed = 1.0
	// DefaultImagePullDelay is how long pulling an image takes at speed 1.
	DefaultImagePullDelay = 2 * time.Second
	// DefaultContainerCreateDelay is how long creating a container takes.
	DefaultContainerCreateDelay = 300 * time.Millisecond
	// DefaultContainerStartDelay is how long starting a container takes.
	DefaultContainerStartDelay = 300 * time.Millisecond
	// DefaultReadinessDelay is how long a started container takes to
	// become ready when no annotation says otherwise: none, like a
	// container without a readiness probe.
	DefaultReadinessDelay = 0
	// DefaultLeaseDuration is the node lease's leaseDurationSeconds, the
	// kubelet's nodeLeaseDurationSeconds (40 s). The lease is renewed every
	// quarter of it (10 s).
	DefaultLeaseDuration = 40 * time.Second
	// DefaultStatusUpdateFrequency is how often the kubelet computes the
	// Node's status and compares it with the stored one, the kubelet's
	// nodeStatusUpdateFrequency (10 s). A status that changed is sent at
	// once.
	DefaultStatusUpdateFrequency = 10 * time.Second
	// DefaultStatusReportFrequency is how often an unchanged Node status
	// is sent all the same, with fresh heartbeat times: the kubelet's
	// nodeStatusReportFrequency (5 min, its default since v1.13, when the
	// Lease became the heartbeat).
	DefaultStatusReportFrequency = 5 * time.Minute
)

// Back-off parameters at speed 1, as the kubelet's (initialCrashLoopBackOff,
// MaxContainerBackOff, imageBackOffPeriod, MaxImageBackOff, and the 10
// minutes after which a container that ran without trouble starts again
// from the initial back-off).
const (
	CrashLoopBackOffInitial = 10 * time.Second
	CrashLoopBackOffMax     = 300 * time.Second
	ImagePullBackOffInitial = 10 * time.Second
	ImagePullBackOffMax     = 300 * time.Second
	BackOffReset            = 10 * time.Minute
	// ZeroSpeedBackOffDivisor divides the back-offs when Speed is 0: with
	// no delay at all a crashing container or a missing image would make
	// the kubelet spin, so at Speed 0 back-offs run as at speed 1000
	// (10 ms doubling to 300 ms).
	ZeroSpeedBackOffDivisor = 1000
)

// Simulated machine facts reported in the Node's status.
const (
	// ContainerRuntimeVersion is status.nodeInfo.containerRuntimeVersion,
	// and the scheme of container IDs.
	ContainerRuntimeVersion = "kubesim://1.0"
	// OSImage and KernelVersion describe the simulated machine.
	OSImage       = "kubesim simulated Linux"
	KernelVersion = "6.8.0-kubesim"
	// OperatingSystem and Architecture are fixed, whatever the host, so
	// that every node looks the same on every machine.
	OperatingSystem = "linux"
	Architecture    = "amd64"
	// KubeletPort is status.daemonEndpoints.kubeletEndpoint.port of a
	// kubelet without a server (Config.Serving nil; nothing listens
	// there); one with a server advertises the port it listens on.
	KubeletPort = 10250
	// InstanceType is the node.kubernetes.io/instance-type label.
	InstanceType = "kubesim"
)

// Resources every node reports besides its cpu, memory and pods.
var (
	// EphemeralStorageCapacity is each node's ephemeral-storage capacity.
	EphemeralStorageCapacity = resource.MustParse("100Gi")
	// MemoryEvictionThreshold is kept out of allocatable memory, as the
	// kubelet's default hard eviction threshold memory.available<100Mi.
	MemoryEvictionThreshold = resource.MustParse("100Mi")
	// EphemeralStorageEvictionPercent of ephemeral storage is kept out of
	// allocatable, as the default nodefs.available<10%.
	EphemeralStorageEvictionPercent int64 = 10
)

// NodeSpec describes one simulated node.
type NodeSpec struct {
	Name string
	// CPU and Memory are the node's capacity.
	CPU, Memory resource.Quantity
	// Pods is the most pods the node runs (capacity "pods").
	Pods int64
	// Labels are added to the kubelet's own labels (kubernetes.io/hostname,
	// kubernetes.io/os...). Keys in the kubernetes.io and k8s.io
	// namespaces must be labels a kubelet may set (NodeRestriction).
	Labels map[string]string
	// Taints are set when the kubelet creates its Node (a kubelet may not
	// change the taints of an existing Node).
	Taints []corev1.Taint
}

// DefaultNodeSpec returns a node with 4 cpu, 8Gi of memory and 110 pods.
func DefaultNodeSpec(name string) NodeSpec {
	return NodeSpec{Name: name, CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi"), Pods: DefaultPods}
}

// DefaultNodes returns n default nodes named node-1 ... node-n.
func DefaultNodes(n int) []NodeSpec {
	nodes := make([]NodeSpec, 0, n)
	for i := 1; i <= n; i++ {
		nodes = append(nodes, DefaultNodeSpec(fmt.Sprintf("node-%d", i)))
	}
	return nodes
}

// Capacity is the node's status.capacity.
func (s NodeSpec) Capacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              s.CPU.DeepCopy(),
		corev1.ResourceMemory:           s.Memory.DeepCopy(),
		corev1.ResourcePods:             *resource.NewQuantity(s.Pods, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: EphemeralStorageCapacity.DeepCopy(),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
}

// Allocatable is the node's status.allocatable: the capacity less what
// the kubelet's default eviction thresholds keep back (100Mi of memory,
// 10% of ephemeral storage). There are no system or kube reservations.
func (s NodeSpec) Allocatable() corev1.ResourceList {
	a := s.Capacity()
	mem := s.Memory.DeepCopy()
	mem.Sub(MemoryEvictionThreshold)
	if mem.Sign() < 0 {
		mem = resource.MustParse("0")
	}
	a[corev1.ResourceMemory] = mem
	eph := EphemeralStorageCapacity.Value()
	a[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(eph-eph*EphemeralStorageEvictionPercent/100, resource.BinarySI)
	return a
}

// Delays are the simulated runtime's base delays, at speed 1.
type Delays struct {
	// ImagePull is how long a pull of an image the node does not have
	// takes. A pull that fails (the registry says "not found") and a pull
	// with imagePullPolicy Always of an image the node has (only the
	// manifest is fetched) take a quarter of it.
	ImagePull time.Duration
	// ContainerCreate and ContainerStart are how long creating and
	// starting a container take.
	ContainerCreate, ContainerStart time.Duration
	// ReadinessDefault is how long a started container takes to become
	// ready unless the kubesim.io/ready-after annotation says otherwise. A
	// container with a readiness probe adds its initialDelaySeconds.
	ReadinessDefault time.Duration
}

// DefaultDelays returns the default delays: pull 2s, create 300ms, start
// 300ms, ready at once.
func DefaultDelays() Delays {
	return Delays{
		ImagePull:        DefaultImagePullDelay,
		ContainerCreate:  DefaultContainerCreateDelay,
		ContainerStart:   DefaultContainerStartDelay,
		ReadinessDefault: DefaultReadinessDelay,
	}
}

// Config configures one kubelet.
type Config struct {
	// Node is the node the kubelet registers and runs pods for.
	Node NodeSpec
	// Client is authenticated as system:node:<Node.Name> in group
	// system:nodes; the Node authorizer lets it see only its own Node and
	// pods.
	Client kubernetes.Interface
	// Recorder receives the runtime actions and status reports; nil
	// records nothing. The actions of a pod's first start (pulls, creates
	// and starts of containers that never ran) are recorded with stage
	// flow.StageKubeletNotified until the status patch that first moves
	// the pod's phase off Pending, which is recorded with
	// flow.StageStatusReported just before it is sent. Everything else
	// (restarts, exits, kills, the other patches) has stage 0.
	Recorder *flow.Recorder
	// Gate holds a pod at the kubelet's two points, at most once per pod
	// each: flow.PointBeforeContainers when the pod worker first starts
	// the pod (after its first Pending status, before the sandbox, pulls
	// and creates), and flow.PointBeforeStatusReport before the status
	// patch that first moves the phase off Pending. Only the pod's own
	// worker waits: the lease, the node status and the other pods go on.
	// A pod being deleted is not held (a hold under way ends). A kubelet
	// started for a node that already ran the pod does not hold it at a
	// point its status shows it past (a sandbox IP or a container ID; a
	// phase other than Pending). Nil lets everything pass.
	Gate *flow.Gate
	// Speed divides every simulated delay and back-off (and the
	// annotations' durations and grace periods). 0 means no simulated
	// delays at all (back-offs then run as at ZeroSpeedBackOffDivisor).
	Speed float64
	// Delays are the base delays at speed 1.
	Delays Delays
	// LeaseDuration is the node lease's duration; the lease is renewed
	// every quarter of it. Not scaled by Speed.
	LeaseDuration time.Duration
	// StatusUpdateFrequency is how often the Node's status is computed
	// and, if it changed, patched. Not scaled by Speed.
	StatusUpdateFrequency time.Duration
	// StatusReportFrequency is how often an unchanged Node status is
	// patched all the same (with fresh heartbeats). Not scaled by Speed.
	StatusReportFrequency time.Duration
	// PodCIDR is spec.podCIDR of the Node (IPv4); pods get their IPs from
	// it. Each node needs its own.
	PodCIDR string
	// NodeIP is the node's InternalIP, the pods' hostIP.
	NodeIP string
	// Clock tells the time; nil means the real clock.
	Clock clock.WithTicker
	// Hollow, if set, makes the kubelet one of the host's hollow nodes:
	// its pods and its Node come from the host's shared informers, and it
	// registers in one of the host's slots (see HollowHost for how that
	// differs from a kubelet on the wire). Nil: its own pod watch and a
	// GET of its Node at each status check, as upstream.
	Hollow *HollowHost
	// StaticPods are the pods of the kubelet's manifest directory
	// (staticpods.go): it runs them and keeps a mirror pod of each.
	StaticPods []StaticPod
	// Images is the simulated registry the kubelet pulls from; nil: the
	// DefaultCatalogue.
	Images *Catalogue
	// Serving, if set, makes the kubelet serve its HTTPS API (the
	// containers' logs) and advertise its port in the Node's status.
	Serving *ServingConfig
}

// NewConfig returns the defaults for node: speed 1, the default delays,
// lease 40s, status checked every 10s and sent when changed or every
// 5 min, PodCIDR DefaultPodCIDR(name) and NodeIP
// DefaultNodeIP(name).
func NewConfig(node NodeSpec, client kubernetes.Interface) *Config {
	return &Config{
		Node:                  node,
		Client:                client,
		Speed:                 DefaultSpeed,
		Delays:                DefaultDelays(),
		LeaseDuration:         DefaultLeaseDuration,
		StatusUpdateFrequency: DefaultStatusUpdateFrequency,
		StatusReportFrequency: DefaultStatusReportFrequency,
		PodCIDR:               DefaultPodCIDR(node.Name),
		NodeIP:                DefaultNodeIP(node.Name),
	}
}

// nodeNumber is n for a name ending in "-<n>".
func nodeNumber(name string) (int, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	return n, err == nil && n >= 0
}

func nameHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// DefaultPodCIDR is 10.244.<n>.0/24 for a node named "...-<n>" (n up to
// 255), as the node IPAM controller hands them out; other names get a /24
// of 10.244.0.0/16 chosen by a hash of the name. Nodes whose CIDRs
// collide must be given one each.
func DefaultPodCIDR(name string) string {
	n, ok := nodeNumber(name)
	if !ok || n > 255 {
		n = int(nameHash(name) % 256)
	}
	return fmt.Sprintf("10.244.%d.0/24", n)
}

// DefaultNodeIP is 192.168.0.<10+n> for a node named "...-<n>" (n from 1
// to 244: node-1 is 192.168.0.11); other names get an address in
// 192.168.1.0-192.168.254.255 chosen by a hash of the name.
func DefaultNodeIP(name string) string {
	if n, ok := nodeNumber(name); ok && n >= 1 && n <= 244 {
		return fmt.Sprintf("192.168.0.%d", 10+n)
	}
	h := nameHash(name)
	return fmt.Sprintf("192.168.%d.%d", 1+h%254, 1+(h/254)%254)
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	if errs := validation.IsDNS1123Subdomain(c.Node.Name); len(errs) > 0 {
		return fmt.Errorf("kubelet: node name %q: %s", c.Node.Name, strings.Join(errs, "; "))
	}
	switch {
	case c.Client == nil:
		return errors.New("kubelet: no API client")
	case c.Speed < 0:
		return fmt.Errorf("kubelet: speed %v is negative", c.Speed)
	case c.Delays.ImagePull < 0 || c.Delays.ContainerCreate < 0 || c.Delays.ContainerStart < 0 || c.Delays.ReadinessDefault < 0:
		return errors.New("kubelet: delays must not be negative")
	case c.LeaseDuration <= 0:
		return errors.New("kubelet: lease duration must be positive")
	case c.StatusUpdateFrequency <= 0:
		return errors.New("kubelet: status update frequency must be positive")
	case c.StatusReportFrequency <= 0:
		return errors.New("kubelet: status report frequency must be positive")
	case c.Node.CPU.Sign() <= 0 || c.Node.Memory.Sign() <= 0:
		return fmt.Errorf("kubelet: node %s needs positive cpu and memory", c.Node.Name)
	case c.Node.Pods <= 0:
		return fmt.Errorf("kubelet: node %s needs room for pods", c.Node.Name)
	}
	if ip := net.ParseIP(c.NodeIP); ip == nil || ip.To4() == nil {
		return fmt.Errorf("kubelet: node IP %q is not an IPv4 address", c.NodeIP)
	}
	if _, err := newIPAM(c.PodCIDR); err != nil {
		return err
	}
	if c.Serving != nil {
		if err := c.Serving.validate(); err != nil {
			return err
		}
	}
	for k, v := range c.Node.Labels {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("kubelet: node label %q: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("kubelet: node label %s=%q: %s", k, v, strings.Join(errs, "; "))
		}
	}
	if bad := forbiddenLabels(c.Node.Labels); len(bad) > 0 {
		// The kubelet refuses such --node-labels the same way.
		return fmt.Errorf("kubelet: unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: %v", bad)
	}
	for _, t := range c.Node.Taints {
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return fmt.Errorf("kubelet: taint %s: unknown effect %q", t.Key, t.Effect)
		}
		if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
			return fmt.Errorf("kubelet: taint key %q: %s", t.Key, strings.Join(errs, "; "))
		}
	}
	return nil
}

// kubeletLabels are the kubernetes.io labels a kubelet may set on its Node.
var kubeletLabels = map[string]bool{
	corev1.LabelHostname:                true,
	corev1.LabelTopologyZone:            true,
	corev1.LabelTopologyRegion:          true,
	corev1.LabelFailureDomainBetaZone:   true,
	corev1.LabelFailureDomainBetaRegion: true,
	corev1.LabelInstanceType:            true,
	corev1.LabelInstanceTypeStable:      true,
	corev1.LabelOSStable:                true,
	corev1.LabelArchStable:              true,
	"beta.kubernetes.io/os":             true,
	"beta.kubernetes.io/arch":           true,
}

// forbiddenLabels lists, sorted, the keys of labels the NodeRestriction
// admission plugin would refuse from a kubelet.
func forbiddenLabels(labels map[string]string) []string {
	var bad []string
	for k := range labels {
		ns, _, ok := strings.Cut(k, "/")
		if !ok || kubeletLabels[k] {
			continue
		}
		in := func(domain string) bool { return ns == domain || strings.HasSuffix(ns, "."+domain) }
		switch {
		case in(corev1.LabelNamespaceNodeRestriction):
			bad = append(bad, k)
		case in(corev1.LabelNamespaceSuffixKubelet) || in(corev1.LabelNamespaceSuffixNode):
		case in("kubernetes.io") || in("k8s.io"):
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

// scaler turns base durations into simulated ones.
type scaler struct{ speed float64 }

// delay scales a simulated delay: divided by speed, none at speed 0.
func (s scaler) delay(d time.Duration) time.Duration {
	if s.speed <= 0 || d <= 0 {
		return 0
	}
	return time.Duration(float64(d) / s.speed)
}

// backOff scales a back-off: divided by speed, by ZeroSpeedBackOffDivisor
// at speed 0.
func (s scaler) backOff(d time.Duration) time.Duration {
	if s.speed <= 0 {
		return d / ZeroSpeedBackOffDivisor
	}
	return time.Duration(float64(d) / s.speed)
}
