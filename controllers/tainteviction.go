package controllers

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// TaintEvictionController deletes the pods of a node with a NoExecute
// taint they do not tolerate at once, and those that tolerate it for
// tolerationSeconds when that time has passed since the controller saw
// the taint, as upstream's taint eviction controller
// (pkg/controller/tainteviction, v1.37): it first adds the pod condition
// DisruptionTarget (reason DeletionByTaintManager), then deletes the pod
// with its default grace period, with the event TaintManagerEviction.
// tolerationSeconds count at the cluster's node health speed. A deletion
// is only a request: a pod bound to a node whose kubelet is gone stays
// Terminating until that kubelet comes back or the Node is deleted, but
// its ReplicaSet no longer counts it and makes a replacement. Create it
// with NewTaintEvictionController, run it with Run.
type TaintEvictionController struct {
	cfg         *Config
	client      kubernetes.Interface
	podLister   corelisters.PodLister
	nodeLister  corelisters.NodeLister
	podIndexer  cache.Indexer
	synced      []cache.DoneChecker
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	timers      *evictionTimers

	mu           sync.Mutex
	taintedNodes map[string][]corev1.Taint // NoExecute taints by node

	nodeQueue workqueue.TypedInterface[string]
	podQueue  workqueue.TypedInterface[podOnNode]
}

// podOnNode is a pod update: the pod and the node it was bound to.
type podOnNode struct{ namespace, name, node string }

// NewTaintEvictionController sets up the controller's informers (Pods,
// Nodes) on factory; client acts as node-controller, as upstream's.
func NewTaintEvictionController(cfg *Config, factory informers.SharedInformerFactory, client kubernetes.Interface) (*TaintEvictionController, error) {
	podInf, nodeInf := factory.Core().V1().Pods(), factory.Core().V1().Nodes()
	if err := addPodNodeNameIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	broadcaster := record.NewBroadcaster()
	c := &TaintEvictionController{
		cfg: cfg, client: client, podLister: podInf.Lister(), nodeLister: nodeInf.Lister(),
		podIndexer:   podInf.Informer().GetIndexer(),
		synced:       []cache.DoneChecker{podInf.Informer().HasSyncedChecker(), nodeInf.Informer().HasSyncedChecker()},
		broadcaster:  broadcaster,
		recorder:     broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: TaintEvictionControllerName}),
		taintedNodes: map[string][]corev1.Taint{},
		nodeQueue:    workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "noexec_taint_node"}),
		podQueue:     workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[podOnNode]{Name: "noexec_taint_pod"}),
	}
	c.timers = newEvictionTimers(c.evict)
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.podUpdated(nil, obj) },
		UpdateFunc: c.podUpdated,
		DeleteFunc: func(obj any) {
			if p, err := podFromDeleted(obj); err == nil {
				c.podUpdated(p, nil)
			}
		},
	}); err != nil {
		return nil, err
	}
	if _, err := nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.nodeUpdated(nil, obj) },
		UpdateFunc: c.nodeUpdated,
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			c.nodeUpdated(obj, nil)
		},
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// podUpdated queues a pod that is new, gone, or whose node or
// tolerations changed.
func (c *TaintEvictionController) podUpdated(oldObj, curObj any) {
	old, _ := oldObj.(*corev1.Pod)
	cur, _ := curObj.(*corev1.Pod)
	p := cur
	if p == nil {
		p = old
	}
	if p == nil {
		return
	}
	if old != nil && cur != nil && old.Spec.NodeName == cur.Spec.NodeName &&
		apiequality.Semantic.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		return
	}
	c.podQueue.Add(podOnNode{namespace: p.Namespace, name: p.Name, node: p.Spec.NodeName})
}

// nodeUpdated queues a node that is new, gone, or whose NoExecute taints
// changed.
func (c *TaintEvictionController) nodeUpdated(oldObj, curObj any) {
	old, _ := oldObj.(*corev1.Node)
	cur, _ := curObj.(*corev1.Node)
	n := cur
	if n == nil {
		n = old
	}
	if n == nil {
		return
	}
	if old != nil && cur != nil && apiequality.Semantic.DeepEqual(noExecuteTaints(old.Spec.Taints), noExecuteTaints(cur.Spec.Taints)) {
		return
	}
	c.nodeQueue.Add(n.Name)
}

// noExecuteTaints keeps the NoExecute taints.
func noExecuteTaints(taints []corev1.Taint) []corev1.Taint {
	out := []corev1.Taint{}
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// Run sends the controller's events, waits for the informers, then
// handles node and pod updates until ctx is done; it cancels the pending
// deletions and waits for those under way before it returns.
func (c *TaintEvictionController) Run(ctx context.Context) {
	c.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	defer c.broadcaster.Shutdown()
	var wg sync.WaitGroup
	defer func() {
		c.nodeQueue.ShutDown()
		c.podQueue.ShutDown()
		wg.Wait()
		c.timers.stop()
	}()
	if !cache.WaitFor(ctx, "", c.synced...) {
		return
	}
	wg.Go(func() {
		for {
			name, quit := c.nodeQueue.Get()
			if quit {
				return
			}
			c.handleNodeUpdate(ctx, name)
			c.nodeQueue.Done(name)
		}
	})
	wg.Go(func() {
		for {
			item, quit := c.podQueue.Get()
			if quit {
				return
			}
			c.handlePodUpdate(ctx, item)
			c.podQueue.Done(item)
		}
	})
	<-ctx.Done()
}

// handleNodeUpdate records the node's NoExecute taints and looks at each
// of its pods again; with none left their deletions are cancelled.
func (c *TaintEvictionController) handleNodeUpdate(ctx context.Context, name string) {
	node, err := c.nodeLister.Get(name)
	if err != nil {
		c.mu.Lock()
		delete(c.taintedNodes, name)
		c.mu.Unlock()
		return
	}
	taints := noExecuteTaints(node.Spec.Taints)
	c.mu.Lock()
	if len(taints) == 0 {
		delete(c.taintedNodes, name)
	} else {
		c.taintedNodes[name] = taints
	}
	c.mu.Unlock()
	now := time.Now()
	for _, p := range podsOnNode(c.podIndexer, name) {
		if len(taints) == 0 {
			c.cancelEviction(podKey(p))
			continue
		}
		c.processPodOnNode(ctx, podKey(p), name, p.Spec.Tolerations, taints, now)
	}
}

// handlePodUpdate looks at one pod against its node's NoExecute taints.
func (c *TaintEvictionController) handlePodUpdate(ctx context.Context, item podOnNode) {
	pod, err := c.podLister.Pods(item.namespace).Get(item.name)
	if err != nil {
		c.cancelEviction(item.namespace + "/" + item.name)
		return
	}
	if pod.Spec.NodeName != item.node || pod.Spec.NodeName == "" {
		return
	}
	c.mu.Lock()
	taints, ok := c.taintedNodes[pod.Spec.NodeName]
	c.mu.Unlock()
	if ok {
		c.processPodOnNode(ctx, podKey(pod), pod.Spec.NodeName, pod.Spec.Tolerations, taints, time.Now())
	}
}
