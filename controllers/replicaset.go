package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Upstream's ReplicaSet controller constants.
const (
	// BurstReplicas bounds the creations or deletions of one sync.
	BurstReplicas = 500
	// SlowStartInitialBatchSize is the first batch of creations; each
	// batch that succeeds doubles the next.
	SlowStartInitialBatchSize = 1
)

var rsKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")

// ReplicaSetController keeps each ReplicaSet's pods at spec.replicas, as
// upstream's ReplicaSetController. Create it with
// NewReplicaSetController, run it with Run.
type ReplicaSetController struct {
	client       kubernetes.Interface
	rsLister     appslisters.ReplicaSetLister
	podIndexer   cache.Indexer // podControllerUIDIndex
	synced       []cache.DoneChecker
	queue        workqueue.TypedRateLimitingInterface[string]
	expectations *expectations
	burst        int
	// triggers and syncKey report the controller's actions (observe.go);
	// syncKey is sync unless the manager has an Observer.
	triggers eventTriggers
	syncKey  func(context.Context, string) error
}

// NewReplicaSetController sets up the controller's informers on factory;
// expectationsTimeout is how long it waits for its own writes to be seen.
func NewReplicaSetController(factory informers.SharedInformerFactory, client kubernetes.Interface, expectationsTimeout time.Duration) (*ReplicaSetController, error) {
	rsInf, podInf := factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
	c := &ReplicaSetController{
		client: client, rsLister: rsInf.Lister(), podIndexer: podInf.Informer().GetIndexer(),
		synced: []cache.DoneChecker{rsInf.Informer().HasSyncedChecker(), podInf.Informer().HasSyncedChecker()},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "replicaset"}),
		expectations: newExpectations(expectationsTimeout),
		burst:        BurstReplicas,
	}
	c.syncKey = c.sync
	if err := addPodControllerUIDIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	if _, err := rsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueueFor(obj, "add") },
		UpdateFunc: func(_, cur any) { c.enqueueFor(cur, "update") },
		DeleteFunc: c.deleteReplicaSet,
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informers, then syncs with workers goroutines until
// ctx is done; it returns when they have all stopped.
func (c *ReplicaSetController) Run(ctx context.Context, workers int) {
	runWorkers(ctx, c.queue, c.synced, workers, c.syncKey)
}

// enqueueFor queues the ReplicaSet obj, told by its informer's handler
// verb.
func (c *ReplicaSetController) enqueueFor(obj any, verb string) {
	if rs, ok := obj.(*appsv1.ReplicaSet); ok {
		c.enqueueBecause(rs, triggerOf(verb, rs, "apps/v1", rsKind.Kind))
	}
}

// enqueueBecause queues rs, noting t as the reason.
func (c *ReplicaSetController) enqueueBecause(rs *appsv1.ReplicaSet, t Trigger) {
	if key, err := cache.MetaNamespaceKeyFunc(rs); err == nil {
		c.triggers.note(key, t)
		c.queue.Add(key)
	}
}

// podTrigger is the informer event verb about pod.
func podTrigger(verb string, pod *corev1.Pod) Trigger { return triggerOf(verb, pod, "v1", "Pod") }

func (c *ReplicaSetController) deleteReplicaSet(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.expectations.forget(key)
		c.queue.Add(key)
	}
}

// ownerOf returns the ReplicaSet ref names, if it still is the one of
// ref's UID.
func (c *ReplicaSetController) ownerOf(namespace string, ref *metav1.OwnerReference) *appsv1.ReplicaSet {
	if ref == nil || ref.Kind != rsKind.Kind {
		return nil
	}
	rs, err := c.rsLister.ReplicaSets(namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return nil
	}
	return rs
}

// replicaSetsMatching returns the ReplicaSets whose selector matches the
// orphan pod's labels.
func (c *ReplicaSetController) replicaSetsMatching(pod *corev1.Pod) []*appsv1.ReplicaSet {
	all, err := c.rsLister.ReplicaSets(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.ReplicaSet
	for _, rs := range all {
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, rs)
	}
	return out
}

func (c *ReplicaSetController) addPod(obj any) {
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil {
		c.deletePod(pod) // seen already being deleted: a deletion, not a creation
		return
	}
	if ref := metav1.GetControllerOf(pod); ref != nil {
		if rs := c.ownerOf(pod.Namespace, ref); rs != nil {
			key := rs.Namespace + "/" + rs.Name
			c.expectations.creationObserved(key)
			c.triggers.note(key, podTrigger("add", pod))
			c.queue.Add(key)
		}
		return
	}
	for _, rs := range c.replicaSetsMatching(pod) {
		c.enqueueBecause(rs, podTrigger("add", pod))
	}
}

func (c *ReplicaSetController) updatePod(oldObj, curObj any) {
	old, cur := oldObj.(*corev1.Pod), curObj.(*corev1.Pod)
	if old.ResourceVersion == cur.ResourceVersion {
		return // a resync
	}
	labelsChanged := !labels.Equals(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		c.deletePod(cur)
		if labelsChanged {
			c.deletePod(old)
		}
		return
	}
	oldRef, curRef := metav1.GetControllerOf(old), metav1.GetControllerOf(cur)
	if oldRef != nil && (curRef == nil || *oldRef != *curRef) {
		if rs := c.ownerOf(old.Namespace, oldRef); rs != nil {
			c.enqueueBecause(rs, podTrigger("update", cur))
		}
	}
	if curRef != nil {
		if rs := c.ownerOf(cur.Namespace, curRef); rs != nil {
			c.enqueueBecause(rs, podTrigger("update", cur))
			// A pod that just became ready is available minReadySeconds later.
			if !isPodReady(old) && isPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
				key, _ := cache.MetaNamespaceKeyFunc(rs)
				c.queue.AddAfter(key, time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
			}
		}
		return
	}
	if labelsChanged || oldRef != nil {
		for _, rs := range c.replicaSetsMatching(cur) {
			c.enqueueBecause(rs, podTrigger("update", cur))
		}
	}
}

func (c *ReplicaSetController) deletePod(obj any) {
	pod, err := podFromDeleted(obj)
	if err != nil {
		return
	}
	rs := c.ownerOf(pod.Namespace, metav1.GetControllerOf(pod))
	if rs == nil {
		return
	}
	key := rs.Namespace + "/" + rs.Name
	c.expectations.deletionObserved(key, podKey(pod))
	c.triggers.note(key, podTrigger("delete", pod))
	c.queue.Add(key)
}

// runWorkers waits for synced, then runs workers goroutines that take
// keys off queue and sync them (a failed sync is retried, rate-limited),
// until ctx is done; it shuts the queue down and waits for them.
func runWorkers(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], synced []cache.DoneChecker, workers int, syncKey func(context.Context, string) error) {
	defer queue.ShutDown()
	if !cache.WaitFor(ctx, "", synced...) {
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for processNext(ctx, queue, syncKey) {
			}
		}()
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// processNext syncs one key; false once the queue is shut down.
func processNext(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], syncKey func(context.Context, string) error) bool {
	key, quit := queue.Get()
	if quit {
		return false
	}
	defer queue.Done(key)
	if err := syncKey(ctx, key); err != nil && ctx.Err() == nil {
		queue.AddRateLimited(key)
		return true
	}
	queue.Forget(key)
	return true
}

// splitKey splits a namespace/name key.
func splitKey(key string) (string, string, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return "", "", fmt.Errorf("controllers: key %q: %w", key, err)
	}
	return ns, name, nil
}

// newReplicaSetControllerDescriptor is the replicaset-controller's entry in
// newControllerDescriptors: Config.Workers workers; its writes and
// decisions are reported as Actions.
func newReplicaSetControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: ReplicaSetControllerName, workers: defaultWorkers,
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := kubernetes.NewForConfig(observeWrites(cc.restConfig(ReplicaSetControllerName)))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ReplicaSetControllerName, err)
			}
			// The expectations timeout is not scaled by the speed: it
			// guards against informer events that never come, it is no
			// simulated delay. Divided at speed 0 it was shorter than a
			// create under load, and the controller counted pods before
			// its creates showed and made too many (1,199 pods for 1,000
			// replicas in BenchmarkDeploymentReady, then deleted 199).
			c, err := NewReplicaSetController(cc.factory, client, DefaultExpectationsTimeout)
			if err != nil {
				return nil, err
			}
			c.syncKey = cc.cfg.observedSync(ReplicaSetControllerName, "replicaset", &c.triggers,
				namespacedObject("apps/v1", rsKind.Kind), c.sync)
			return c.Run, nil
		}}
}
