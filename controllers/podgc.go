package controllers

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// The pod garbage collector's service account and upstream's settings
// (kube-controller-manager v1.37), at speed 1.
const (
	// PodGCControllerName is the service account it acts as (upstream's
	// controller is named pod-garbage-collector-controller).
	PodGCControllerName = "pod-garbage-collector"
	// DefaultTerminatedPodGCThreshold is --terminated-pod-gc-threshold:
	// the finished pods kept before the oldest are deleted.
	DefaultTerminatedPodGCThreshold = 12500
	// PodGCCheckPeriod is how often it looks at every pod.
	PodGCCheckPeriod = 20 * time.Second
	// PodGCQuarantine is how long a node must be gone before its pods
	// are deleted (a Node being re-created is not a deleted one).
	PodGCQuarantine = 40 * time.Second
)

// PodGCController deletes pods nobody else will, as upstream's pod
// garbage collector (pkg/controller/podgc): the oldest finished pods over
// the threshold; pods bound to a node that has been gone for the
// quarantine (the pods of a deleted Node, which no kubelet will ever
// finish); pods being deleted that no node runs; pods being deleted on a
// node that is not Ready and has the taint node.kubernetes.io/out-of-service.
// It marks each Failed (with the condition DisruptionTarget for orphans)
// and deletes it with a grace period of 0. Its periods run at the node
// health speed or, with Config.NodeMonitorGracePeriod given, in
// upstream's proportion to it (20 s and 40 s against 50 s; at speed 0
// with 100,000 pods, listing them every second took 14% of a core).
// Create it with NewPodGCController, run it with Run.
type PodGCController struct {
	cfg        *Config
	client     kubernetes.Interface
	podLister  corelisters.PodLister
	nodeLister corelisters.NodeLister
	synced     []cache.DoneChecker
	nodeQueue  workqueue.TypedDelayingInterface[string] // nodes not seen, in quarantine
	threshold  int
	period     time.Duration
	quarantine time.Duration
}

// NewPodGCController sets up the collector's informers (Pods, Nodes) on
// factory; client acts as pod-garbage-collector.
func NewPodGCController(cfg *Config, factory informers.SharedInformerFactory, client kubernetes.Interface, threshold int) *PodGCController {
	podInf, nodeInf := factory.Core().V1().Pods(), factory.Core().V1().Nodes()
	return &PodGCController{
		cfg: cfg, client: client, podLister: podInf.Lister(), nodeLister: nodeInf.Lister(),
		synced:    []cache.DoneChecker{podInf.Informer().HasSyncedChecker(), nodeInf.Informer().HasSyncedChecker()},
		nodeQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "orphaned_pods_nodes"}),
		threshold: threshold, period: cfg.gracePeriodProportion(PodGCCheckPeriod), quarantine: cfg.gracePeriodProportion(PodGCQuarantine),
	}
}

// Run waits for the informers, then collects every period until ctx is
// done.
func (c *PodGCController) Run(ctx context.Context) {
	defer c.nodeQueue.ShutDown()
	if !cache.WaitFor(ctx, "", c.synced...) {
		return
	}
	wait.UntilWithContext(ctx, c.gc, c.period)
}

// gc is one pass, in upstream's order.
func (c *PodGCController) gc(ctx context.Context) {
	pods, err := c.podLister.List(labels.Everything())
	if err != nil {
		return
	}
	nodes, err := c.nodeLister.List(labels.Everything())
	if err != nil {
		return
	}
	if c.threshold > 0 {
		c.deleteAll(ctx, "terminated pods over the threshold", terminatedOverThreshold(pods, c.threshold), nil)
	}
	c.deleteAll(ctx, "terminating on an out-of-service node", c.terminatingOutOfService(pods), nil)
	c.deleteAll(ctx, "node gone", c.orphaned(ctx, pods, nodes), orphanCondition)
	c.deleteAll(ctx, "terminating, never scheduled", unscheduledTerminating(pods), nil)
}

// deleteAll marks each pod failed and deletes it, all at once, and
// reports the lot as one action.
func (c *PodGCController) deleteAll(ctx context.Context, why string, pods []*corev1.Pod, cond *corev1.PodCondition) {
	if len(pods) == 0 {
		return
	}
	writes := newWriteLog()
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Go(func() { _ = c.markFailedAndDelete(ctx, p, cond, writes) })
	}
	wg.Wait()
	c.cfg.observe(Action{Time: writes.began, Controller: PodGCControllerName, Trigger: why, Key: podKey(pods[0]),
		Decision: why + ": force-deleting " + podCount(len(pods)), Writes: writes.lines()})
}

// newPodGCControllerDescriptor is the pod-garbage-collector's entry in
// newControllerDescriptors: one loop, no workqueue.
func newPodGCControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: PodGCControllerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := cc.client(PodGCControllerName)
			if err != nil {
				return nil, err
			}
			c := NewPodGCController(cc.cfg, cc.factory, client, DefaultTerminatedPodGCThreshold)
			return func(ctx context.Context, _ int) { c.Run(ctx) }, nil
		}}
}
