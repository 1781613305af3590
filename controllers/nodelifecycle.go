package controllers

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// Worker counts of upstream's node lifecycle controller.
const (
	// nodeUpdateWorkers sync the NoSchedule taints of nodes.
	nodeUpdateWorkers = 8
	// podUpdateWorkers mark the pods bound to an unhealthy node not
	// ready (those the monitor pass has not seen yet).
	podUpdateWorkers = 4
)

// NodeLifecycleController watches Nodes and their Leases in
// kube-node-lease, as upstream's node lifecycle controller
// (pkg/controller/nodelifecycle, v1.37): a node whose Lease and status
// have not been renewed for the grace period gets its Ready,
// MemoryPressure, DiskPressure and PIDPressure conditions set to Unknown
// ("NodeStatusUnknown", "Kubelet stopped posting node status."), its pods
// Ready=False, the NoSchedule taint of its conditions at once and the
// NoExecute taint node.kubernetes.io/unreachable (not-ready when Ready is
// False) as the zone's rate limiter allows; the taints go when the node
// is Ready again. Create it with NewNodeLifecycleController, run it with
// Run.
type NodeLifecycleController struct {
	cfg         *Config
	client      kubernetes.Interface
	nodeLister  corelisters.NodeLister
	leaseLister coordinationlisters.LeaseLister
	podLister   corelisters.PodLister
	podIndexer  cache.Indexer
	synced      []cache.DoneChecker
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	taints      taintPatcher
	now         func() time.Time

	monitorPeriod, gracePeriod, startupGracePeriod, evictionPeriod time.Duration
	evictionQPS, secondaryEvictionQPS                              float32
	largeClusterThreshold                                          int
	unhealthyZoneThreshold                                         float32

	health     nodeHealths
	knownNodes map[string]*corev1.Node // the monitor pass's own
	retry      sync.Map                // nodes whose pods are still to be marked not ready

	mu           sync.Mutex // guards zoneStates and zoneTainters
	zoneStates   map[string]zoneState
	zoneTainters map[string]*taintingQueue

	nodeQueue workqueue.TypedInterface[string]
	podQueue  workqueue.TypedRateLimitingInterface[string]
}

// NewNodeLifecycleController sets up the controller's informers (Nodes,
// Leases, Pods) on factory, with upstream's periods and rates scaled by
// cfg's node health speed; client acts as node-controller.
func NewNodeLifecycleController(cfg *Config, factory informers.SharedInformerFactory, client kubernetes.Interface) (*NodeLifecycleController, error) {
	nodeInf, leaseInf, podInf := factory.Core().V1().Nodes(), factory.Coordination().V1().Leases(), factory.Core().V1().Pods()
	if err := addPodNodeNameIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	broadcaster := record.NewBroadcaster()
	c := &NodeLifecycleController{
		cfg: cfg, client: client,
		nodeLister: nodeInf.Lister(), leaseLister: leaseInf.Lister(), podLister: podInf.Lister(),
		podIndexer:  podInf.Informer().GetIndexer(),
		synced:      []cache.DoneChecker{nodeInf.Informer().HasSyncedChecker(), leaseInf.Informer().HasSyncedChecker(), podInf.Informer().HasSyncedChecker()},
		broadcaster: broadcaster,
		recorder:    broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: NodeControllerName}),
		taints:      taintPatcher{client: client},
		now:         time.Now,

		monitorPeriod:          cfg.monitorPeriod(),
		gracePeriod:            cfg.MonitorGracePeriod(),
		startupGracePeriod:     cfg.startupGracePeriod(),
		evictionPeriod:         max(cfg.nodeHealthPeriod(NodeEvictionPeriod), minNodeEvictionPeriod),
		evictionQPS:            cfg.nodeHealthRate(DefaultNodeEvictionRate),
		secondaryEvictionQPS:   cfg.nodeHealthRate(DefaultSecondaryNodeEvictionRate),
		largeClusterThreshold:  DefaultLargeClusterSizeThreshold,
		unhealthyZoneThreshold: DefaultUnhealthyZoneThreshold,

		health:       nodeHealths{m: map[string]*nodeHealth{}},
		knownNodes:   map[string]*corev1.Node{},
		zoneStates:   map[string]zoneState{},
		zoneTainters: map[string]*taintingQueue{},
		nodeQueue:    workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "node_lifecycle_controller"}),
		podQueue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "node_lifecycle_controller_pods"}),
	}
	if _, err := nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.nodeChanged(obj) },
		UpdateFunc: func(_, cur any) { c.nodeChanged(cur) },
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.podChanged(nil, obj) },
		UpdateFunc: c.podChanged,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *NodeLifecycleController) nodeChanged(obj any) {
	if n, ok := obj.(*corev1.Node); ok {
		c.nodeQueue.Add(n.Name)
	}
}

// podChanged queues a pod that was just bound to a node (or first seen
// bound), so that it is marked not ready if the node is unhealthy.
func (c *NodeLifecycleController) podChanged(oldObj, curObj any) {
	cur, ok := curObj.(*corev1.Pod)
	if !ok || cur.Spec.NodeName == "" {
		return
	}
	if old, ok := oldObj.(*corev1.Pod); ok && old.Spec.NodeName == cur.Spec.NodeName {
		return
	}
	c.podQueue.Add(podKey(cur))
}

// Run sends the controller's events, waits for the informers, then runs
// the NoSchedule taint workers, the pod workers, the NoExecute tainting
// pass (every NodeEvictionPeriod) and the node health monitor (every node
// monitor period) until ctx is done; it returns when they have stopped.
func (c *NodeLifecycleController) Run(ctx context.Context) {
	c.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	defer c.broadcaster.Shutdown()
	var wg sync.WaitGroup
	defer func() {
		c.nodeQueue.ShutDown()
		c.podQueue.ShutDown()
		wg.Wait()
	}()
	if !cache.WaitFor(ctx, "", c.synced...) {
		return
	}
	for range nodeUpdateWorkers {
		wg.Go(func() {
			for c.processNextNode(ctx) {
			}
		})
	}
	for range podUpdateWorkers {
		wg.Go(func() {
			for c.processNextPod(ctx) {
			}
		})
	}
	wg.Go(func() { wait.UntilWithContext(ctx, c.noExecuteTaintingPass, c.evictionPeriod) })
	wg.Go(func() { wait.UntilWithContext(ctx, c.monitorNodeHealth, c.monitorPeriod) })
	<-ctx.Done()
}

func (c *NodeLifecycleController) processNextNode(ctx context.Context) bool {
	name, quit := c.nodeQueue.Get()
	if quit {
		return false
	}
	defer c.nodeQueue.Done(name)
	c.noScheduleTaintingPass(ctx, name)
	return true
}

// podNodeNameIndex indexes the shared pod informer by spec.nodeName.
const podNodeNameIndex = "spec.nodeName"

// addPodNodeNameIndex adds podNodeNameIndex to inf unless it has it.
func addPodNodeNameIndex(inf cache.SharedIndexInformer) error {
	if _, ok := inf.GetIndexer().GetIndexers()[podNodeNameIndex]; ok {
		return nil
	}
	return inf.AddIndexers(cache.Indexers{podNodeNameIndex: func(obj any) ([]string, error) {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Spec.NodeName == "" {
			return nil, nil
		}
		return []string{p.Spec.NodeName}, nil
	}})
}

// podsOnNode lists the pods bound to node from indexer.
func podsOnNode(indexer cache.Indexer, node string) []*corev1.Pod {
	objs, err := indexer.ByIndex(podNodeNameIndex, node)
	if err != nil {
		return nil
	}
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// newNodeLifecycleControllerDescriptor is node-controller's entry in
// newControllerDescriptors: the node lifecycle controller and the taint
// eviction controller, both as the service account node-controller (as
// upstream, where taint-eviction-controller has a descriptor of its own
// but the same credentials).
func newNodeLifecycleControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: NodeControllerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := cc.client(NodeControllerName)
			if err != nil {
				return nil, err
			}
			lifecycle, err := NewNodeLifecycleController(cc.cfg, cc.factory, client)
			if err != nil {
				return nil, err
			}
			eviction, err := NewTaintEvictionController(cc.cfg, cc.factory, client)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, _ int) {
				var wg sync.WaitGroup
				wg.Go(func() { lifecycle.Run(ctx) })
				wg.Go(func() { eviction.Run(ctx) })
				wg.Wait()
			}, nil
		}}
}
