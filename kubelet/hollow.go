package kubelet

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/internal/informertrim"
)

// DefaultHollowRegistrations is how many hollow kubelets of one host
// register their Node at the same time.
const DefaultHollowRegistrations = 16

// podNodeIndex indexes the host's pods by spec.nodeName.
const podNodeIndex = "spec.nodeName"

// HollowHost is what many simulated nodes share, as kubemark's hollow
// nodes make a large cluster cheap. Upstream every kubelet (and each of
// kubemark's hollow kubelets, one per pod) has its own connection, its
// own pod watch (fieldSelector spec.nodeName=<node>) and GETs its Node
// every nodeStatusUpdateFrequency. A kubelet given a HollowHost
// (Config.Hollow) differs on the wire:
//
//   - it gets its pods from the host's one informer of all pods, which
//     hands each pod to the kubelet named in its spec.nodeName: one watch
//     for all the host's nodes instead of one each;
//   - its status check reads its Node from the host's one informer of
//     Nodes instead of a GET (the GET upstream reads the API server's
//     cache, which that watch feeds);
//   - its events go through an event broadcaster it shares with up to
//     HollowEventGroupSize-1 other hollow kubelets (hollowEvents), each
//     with its own recorder and writing as its own node, instead of one
//     of its own;
//   - it registers when one of the host's Registrations slots is free, so
//     that thousands of kubelets starting at once do not all knock at the
//     API server together (upstream, kubelets start on their own machines
//     at their own times).
//
// Its own requests (the Node's creation and status, the Lease, pod
// status, events) are as a kubelet's; the caller decides which
// connection they take (the cluster shares one, see cluster.StartKubelet).
// The host's informers act as its client's user.
type HollowHost struct {
	factory informers.SharedInformerFactory
	pods    cache.SharedIndexInformer
	nodes   cache.SharedIndexInformer
	slots   chan struct{}
	events  hollowEvents

	mu       sync.RWMutex
	kubelets map[string]*Kubelet // by node name
	// serving is the hollow kubelets' one server (ServeHollow); nil:
	// each listens on a port of its own.
	serving *hollowServing
}

// NewHollowHost returns a host whose informers list and watch with
// client (it must be allowed to list and watch every pod and Node),
// letting registrations kubelets register at once (at least one). The
// informers keep objects without their managedFields, which no kubelet
// reads (a real kubelet's pod source keeps them: one copy of a pod per
// node, where here one is shared by thousands of nodes).
func NewHollowHost(client kubernetes.Interface, registrations int) (*HollowHost, error) {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(informertrim.ManagedFields))
	h := &HollowHost{
		factory:  factory,
		pods:     factory.Core().V1().Pods().Informer(),
		nodes:    factory.Core().V1().Nodes().Informer(),
		slots:    make(chan struct{}, max(1, registrations)),
		kubelets: map[string]*Kubelet{},
	}
	if err := h.pods.AddIndexers(cache.Indexers{podNodeIndex: podNodeName}); err != nil {
		return nil, err
	}
	if _, err := h.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    h.podChanged,
		UpdateFunc: func(_, obj any) { h.podChanged(obj) },
		DeleteFunc: h.podDeleted,
	}); err != nil {
		return nil, err
	}
	return h, nil
}

func podNodeName(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{pod.Spec.NodeName}, nil
}

// Run runs the host's informers until ctx is done.
func (h *HollowHost) Run(ctx context.Context) {
	h.factory.Start(ctx.Done())
	if h.serving != nil {
		h.serveHollow(ctx) // until ctx is done
	}
	<-ctx.Done()
	h.factory.Shutdown()
}

// podChanged hands a bound pod to its node's kubelet. The read lock is
// held during the call, so that detach waits for it.
func (h *HollowHost) podChanged(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if k := h.kubelets[pod.Spec.NodeName]; k != nil {
		k.podChanged(pod)
	}
}

func (h *HollowHost) podDeleted(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if t, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
		pod, ok = t.Obj.(*corev1.Pod)
	}
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if k := h.kubelets[pod.Spec.NodeName]; k != nil {
		k.podDeleted(obj)
	}
}

// attach makes k the receiver of its node's pods and hands it those the
// informer already holds, as its own informer's first list would (a pod
// whose event comes meanwhile may be handed twice: podChanged takes the
// same version again without effect).
func (h *HollowHost) attach(k *Kubelet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.kubelets[k.cfg.Node.Name] = k
	objs, _ := h.pods.GetIndexer().ByIndex(podNodeIndex, k.cfg.Node.Name)
	for _, obj := range objs {
		k.podChanged(obj)
	}
}

// detach stops handing pods to k; once it returns, no call to k's
// handlers is under way.
func (h *HollowHost) detach(k *Kubelet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.kubelets[k.cfg.Node.Name] == k {
		delete(h.kubelets, k.cfg.Node.Name)
	}
}

// pod is the host's copy of a pod bound to node, if any.
func (h *HollowHost) pod(node, namespace, name string) (*corev1.Pod, bool) {
	obj, ok, err := h.pods.GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, false
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName != node {
		return nil, false
	}
	return pod, true
}

// node is the host's copy of a Node, if it has one.
func (h *HollowHost) node(name string) (*corev1.Node, bool) {
	obj, ok, err := h.nodes.GetIndexer().GetByKey(name)
	if err != nil || !ok {
		return nil, false
	}
	n, ok := obj.(*corev1.Node)
	return n, ok
}

// register runs fn in one of the host's registration slots, waiting for
// one (or for ctx).
func (h *HollowHost) register(ctx context.Context, fn func() error) error {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-h.slots }()
	return fn()
}
