package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// NamespaceControllerName is the namespace controller's service account
// in ControllerNamespace, as upstream names it.
const NamespaceControllerName = "namespace-controller"

// Upstream's periods and sizes of the namespace controller (v1.37), at
// speed 1.
const (
	// DefaultNamespaceDeletionGracePeriod is how long after it sees a
	// namespace being deleted the controller starts on it (upstream's
	// namespaceDeletionGracePeriod: other API servers' admission and etcd
	// members catch up with the deletion and last-moment creates).
	DefaultNamespaceDeletionGracePeriod = 5 * time.Second
	// DefaultNamespaceSyncPeriod is the informer's resync
	// (--namespace-sync-period).
	DefaultNamespaceSyncPeriod = 5 * time.Minute
	// DefaultNamespaceWorkers is --concurrent-namespace-syncs.
	DefaultNamespaceWorkers = 10
	// namespaceClientQPSFactor and namespaceClientBurstFactor raise the
	// controller's client rate limits, as upstream does: it makes many
	// discovery, list and delete calls.
	namespaceClientQPSFactor   = 20
	namespaceClientBurstFactor = 100
)

// NamespaceController empties the namespaces being deleted and then
// releases them, as upstream's namespace controller: it watches
// namespaces through the shared informer, queues one that has a
// deletionTimestamp a grace period later, and hands it to its deleter
// (namespace_deleter.go), which deletes every namespaced resource in it
// and drops the kubernetes finalizer once nothing is left. While content
// remains it tries again after about half the time the content's pods
// were given to stop. Create it with NewNamespaceController, run it with
// Run.
type NamespaceController struct {
	lister  corelisters.NamespaceLister
	synced  cache.DoneChecker
	queue   workqueue.TypedRateLimitingInterface[string]
	deleter *namespaceDeleter
	// delay is the deletion grace period, scale the scaling of the
	// remaining-content retry (both divided by the speed).
	delay time.Duration
	scale func(time.Duration) time.Duration
	cfg   *Config
	why   triggers
}

// NewNamespaceController returns a controller that watches namespaces
// through factory and works on them through client (the namespaces, the
// pods' grace estimate and discovery) and meta (every other resource).
func NewNamespaceController(cfg *Config, factory informers.SharedInformerFactory, client kubernetes.Interface, meta metadata.Interface) (*NamespaceController, error) {
	inf := factory.Core().V1().Namespaces()
	c := &NamespaceController{
		lister: inf.Lister(), synced: inf.Informer().HasSyncedChecker(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(namespaceRateLimiter(),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "namespace"}),
		deleter: &namespaceDeleter{namespaces: client.CoreV1().Namespaces(), pods: client.CoreV1(), meta: meta,
			discover: client.Discovery().ServerPreferredNamespacedResources, scale: cfg.period},
		delay: cfg.period(DefaultNamespaceDeletionGracePeriod), scale: cfg.period, cfg: cfg,
	}
	_, err := inf.Informer().AddEventHandlerWithResyncPeriod(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueue(obj, "add") },
		UpdateFunc: func(_, obj any) { c.enqueue(obj, "update") },
	}, cfg.period(DefaultNamespaceSyncPeriod))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// namespaceRateLimiter retries a failed namespace at least every minute
// and the whole queue at 10 per second (bursts of 100), as upstream's
// nsControllerRateLimiter.
func namespaceRateLimiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 60*time.Second),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}

// enqueue queues a namespace being deleted after the grace period; one
// not being deleted is none of the controller's business.
func (c *NamespaceController) enqueue(obj any, event string) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok || ns.DeletionTimestamp == nil || ns.DeletionTimestamp.IsZero() {
		return
	}
	c.why.note(ns.Name, event+" Namespace "+ns.Name)
	c.queue.AddAfter(ns.Name, c.delay)
}

// Run waits for the namespace informer, then syncs with workers until ctx
// is done.
func (c *NamespaceController) Run(ctx context.Context, workers int) {
	defer c.queue.ShutDown()
	if !cache.WaitFor(ctx, "", c.synced) {
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
}

// processNext syncs one namespace; it reports false once the queue is
// shut down. Content still going is looked at again after half the
// deleter's estimate plus a second (scaled by the speed), as upstream;
// any other failure is retried rate-limited.
func (c *NamespaceController) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	err := c.sync(ctx, name)
	var remaining *ResourcesRemainingError
	switch {
	case err == nil:
		c.queue.Forget(name)
	case errors.As(err, &remaining):
		c.queue.AddAfter(name, c.scale(time.Duration(remaining.Estimate/2+1)*time.Second))
	case ctx.Err() == nil:
		c.queue.AddRateLimited(name)
	}
	return true
}

// sync hands a namespace still in the informer's cache to the deleter
// and reports what it did.
func (c *NamespaceController) sync(ctx context.Context, name string) error {
	trigger := c.why.take(name)
	if _, err := c.lister.Get(name); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	run := &namespaceDeletion{name: name}
	err := c.deleter.delete(ctx, run)
	if writes := run.allWrites(); len(writes) > 0 || run.decision != "" {
		c.cfg.observe(Action{Controller: NamespaceControllerName, Queue: "namespace", Trigger: trigger, Key: name,
			Object: ObjectRef{APIVersion: "v1", Kind: "Namespace", Name: name}, Decision: run.outcome(err), Writes: writes})
	}
	return err
}

// ResourcesRemainingError says content is still going from a namespace
// (pods given time to stop, objects held by finalizers), and about how
// many seconds it may take, as upstream's error of that name.
type ResourcesRemainingError struct {
	Estimate int64
}

func (e *ResourcesRemainingError) Error() string {
	return fmt.Sprintf("some content remains in the namespace, estimate %d seconds before it is removed", e.Estimate)
}

// newNamespaceControllerDescriptor is the namespace-controller's entry in
// newControllerDescriptors: DefaultNamespaceWorkers workers, with
// upstream's raised client rate limits.
func newNamespaceControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: NamespaceControllerName, workers: fixedWorkers(DefaultNamespaceWorkers),
		build: func(cc *controllerContext) (runFunc, error) {
			rc := cc.restConfig(NamespaceControllerName)
			rc.QPS, rc.Burst = namespaceClientQPS(rc.QPS), namespaceClientBurst(rc.Burst)
			client, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return nil, err
			}
			meta, err := metadata.NewForConfig(rc)
			if err != nil {
				return nil, err
			}
			c, err := NewNamespaceController(cc.cfg, cc.factory, client, meta)
			if err != nil {
				return nil, err
			}
			return c.Run, nil
		}}
}

// namespaceClientQPS and namespaceClientBurst are the raised limits
// (client-go's defaults, 5 and 10, when unset).
func namespaceClientQPS(q float32) float32 {
	if q == 0 {
		q = 5
	}
	return q * namespaceClientQPSFactor
}

func namespaceClientBurst(b int) int {
	if b == 0 {
		b = 10
	}
	return b * namespaceClientBurstFactor
}
