package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// Upstream's EndpointSlice controller names and limits.
const (
	// EndpointSliceControllerName is the controller's name and service
	// account in kube-controller-manager.
	EndpointSliceControllerName = "endpointslice-controller"
	// EndpointSliceManagedBy is the endpointslice.kubernetes.io/managed-by
	// label of the slices it manages.
	EndpointSliceManagedBy = "endpointslice-controller.k8s.io"
	// DefaultMaxEndpointsPerSlice is --max-endpoints-per-slice's default.
	DefaultMaxEndpointsPerSlice = 100
	// endpointSliceChangeMinSyncDelay is how long a Service waits for its
	// sync after someone else changed one of its slices.
	endpointSliceChangeMinSyncDelay = time.Second
)

// EndpointSliceController keeps, for each Service with a selector, the
// EndpointSlices that list the pods it selects, as upstream's
// (pkg/controller/endpointslice): one workqueue keyed by Service, fed by
// Service, pod and EndpointSlice events; the slices are reconciled by
// k8s.io/endpointslice's Reconciler and its EndpointSliceTracker, as
// upstream's are (reconcile). Upstream puts pod events on a second queue
// and finds their Services in its workers; kubesim finds them in the
// event handler, with the same functions. The topology-aware-hints
// annotation is not followed (no topology cache); trafficDistribution is.
// Create it with NewEndpointSliceController, run it with Run.
type EndpointSliceController struct {
	client       kubernetes.Interface
	svcLister    corelisters.ServiceLister
	podLister    corelisters.PodLister
	nodeLister   corelisters.NodeLister
	sliceLister  discoverylisters.EndpointSliceLister
	synced       []cache.DoneChecker
	queue        workqueue.TypedRateLimitingInterface[string]
	tracker      *endpointsliceutil.EndpointSliceTracker
	triggerTimes *endpointsliceutil.TriggerTimeTracker
	maxPerSlice  int32
	// minSyncDelay is endpointSliceChangeMinSyncDelay, scaled.
	minSyncDelay time.Duration
	why          eventTriggers
	// syncKey is sync, wrapped by the manager to report actions.
	syncKey func(context.Context, string) error
}

// NewEndpointSliceController sets up the controller's informers on
// factory; maxPerSlice is --max-endpoints-per-slice, minSyncDelay the
// delay of a sync after a foreign change to a slice.
func NewEndpointSliceController(factory informers.SharedInformerFactory, client kubernetes.Interface, maxPerSlice int, minSyncDelay time.Duration) (*EndpointSliceController, error) {
	if maxPerSlice < 1 || maxPerSlice > 1000 {
		return nil, fmt.Errorf("max endpoints per slice %d: want 1 to 1000", maxPerSlice)
	}
	svcInf, podInf := factory.Core().V1().Services(), factory.Core().V1().Pods()
	nodeInf, sliceInf := factory.Core().V1().Nodes(), factory.Discovery().V1().EndpointSlices()
	c := &EndpointSliceController{
		client: client, svcLister: svcInf.Lister(), podLister: podInf.Lister(),
		nodeLister: nodeInf.Lister(), sliceLister: sliceInf.Lister(),
		synced: []cache.DoneChecker{svcInf.Informer().HasSyncedChecker(), podInf.Informer().HasSyncedChecker(),
			nodeInf.Informer().HasSyncedChecker(), sliceInf.Informer().HasSyncedChecker()},
		// Upstream's: per-key back-off from 1s to 1000s, and 10 syncs a
		// second (bursts of 100) overall.
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedMaxOfRateLimiter(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 1000*time.Second),
				&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)}),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "endpoint_slice"}),
		tracker: endpointsliceutil.NewEndpointSliceTracker(), triggerTimes: endpointsliceutil.NewTriggerTimeTracker(),
		maxPerSlice: int32(maxPerSlice), minSyncDelay: minSyncDelay,
	}
	c.syncKey = c.sync
	return c, c.addHandlers(svcInf.Informer(), podInf.Informer(), sliceInf.Informer())
}

func (c *EndpointSliceController) addHandlers(svcs, pods, slices cache.SharedIndexInformer) error {
	_, err1 := svcs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueueService(obj, "add") },
		UpdateFunc: func(_, cur any) { c.enqueueService(cur, "update") },
		DeleteFunc: func(obj any) { c.enqueueService(obj, "delete") },
	})
	_, err2 := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.podChanged(nil, obj, "add") },
		UpdateFunc: func(old, cur any) { c.podChanged(old, cur, "update") },
		DeleteFunc: func(obj any) { c.podChanged(obj, nil, "delete") },
	})
	_, err3 := slices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.sliceAdded,
		UpdateFunc: c.sliceUpdated,
		DeleteFunc: c.sliceDeleted,
	})
	return errors.Join(err1, err2, err3)
}

// Run waits for the informers, then syncs Services with workers
// goroutines until ctx is done; it returns when they have all stopped.
func (c *EndpointSliceController) Run(ctx context.Context, workers int) {
	runWorkers(ctx, c.queue, c.synced, workers, c.syncKey)
}

func (c *EndpointSliceController) enqueueService(obj any, verb string) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	if svc, ok := obj.(*corev1.Service); ok {
		c.why.note(key, triggerOf(verb, svc, "v1", "Service"))
	}
	c.queue.Add(key)
}

func (c *EndpointSliceController) podChanged(old, cur any, verb string) {
	queueServicesOfPod(c.svcLister, &c.why, c.queue, old, cur, verb)
}

func (c *EndpointSliceController) sliceAdded(obj any) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if ok && managedByUs(s) && c.tracker.ShouldSync(s) {
		c.enqueueForSlice(s, "add")
	}
}

func (c *EndpointSliceController) sliceUpdated(oldObj, curObj any) {
	old, cur := oldObj.(*discoveryv1.EndpointSlice), curObj.(*discoveryv1.EndpointSlice)
	if old.Labels[discoveryv1.LabelServiceName] != cur.Labels[discoveryv1.LabelServiceName] {
		c.enqueueForSlice(cur, "update")
		c.enqueueForSlice(old, "update")
		return
	}
	if managedByUs(old) != managedByUs(cur) || (managedByUs(cur) && c.tracker.ShouldSync(cur)) {
		c.enqueueForSlice(cur, "update")
	}
}

func (c *EndpointSliceController) sliceDeleted(obj any) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		t, isTombstone := obj.(cache.DeletedFinalStateUnknown)
		if s, ok = t.Obj.(*discoveryv1.EndpointSlice); !isTombstone || !ok {
			return
		}
	}
	if managedByUs(s) && c.tracker.Has(s) && !c.tracker.HandleDeletion(s) {
		c.enqueueForSlice(s, "delete")
	}
}

// enqueueForSlice queues the slice's Service, after the minimum delay.
func (c *EndpointSliceController) enqueueForSlice(s *discoveryv1.EndpointSlice, verb string) {
	name := s.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return
	}
	key := s.Namespace + "/" + name
	c.queue.AddAfter(key, c.minSyncDelay) // a delayed key has no trigger
}

func managedByUs(s *discoveryv1.EndpointSlice) bool {
	return s.Labels[discoveryv1.LabelManagedBy] == EndpointSliceManagedBy
}

// errStaleSlices: the informer has not seen the controller's own writes
// yet; the sync is retried (upstream's StaleInformerCache).
var errStaleSlices = errors.New("EndpointSlice informer cache is out of date")

// sync brings the Service key's slices in line with its pods.
func (c *EndpointSliceController) sync(ctx context.Context, key string) error {
	ns, name, err := splitKey(key)
	if err != nil {
		return nil
	}
	svc, err := c.svcLister.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.triggerTimes.DeleteService(ns, name)
		c.tracker.DeleteService(ns, name)
		return nil // the garbage collector deletes its slices
	}
	if err != nil || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return err
	}
	pods, err := c.podLister.Pods(ns).List(labels.Set(svc.Spec.Selector).AsSelectorPreValidated())
	if err != nil {
		return err
	}
	mine := labels.Set{discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: EndpointSliceManagedBy}
	listed, err := c.sliceLister.EndpointSlices(ns).List(mine.AsSelectorPreValidated())
	if err != nil {
		return err
	}
	existing := make([]*discoveryv1.EndpointSlice, 0, len(listed))
	for _, s := range listed {
		if s.DeletionTimestamp == nil {
			existing = append(existing, s)
		}
	}
	if c.tracker.StaleSlices(svc, existing) {
		return errStaleSlices
	}
	return c.reconcile(ctx, svc, pods, existing, c.triggerTimes.ComputeEndpointLastChangeTriggerTime(ns, svc, pods))
}

// newEndpointSliceControllerDescriptor is the endpointslice-controller's entry
// in newControllerDescriptors: Config.Workers workers, at most
// DefaultMaxEndpointsPerSlice endpoints a slice; its writes and decisions
// are reported as Actions.
func newEndpointSliceControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: EndpointSliceControllerName, workers: defaultWorkers,
		build: func(cc *controllerContext) (runFunc, error) {
			// Its writes are recorded in the actions it reports.
			client, err := kubernetes.NewForConfig(observeWrites(cc.restConfig(EndpointSliceControllerName)))
			if err != nil {
				return nil, err
			}
			c, err := NewEndpointSliceController(cc.factory, client, DefaultMaxEndpointsPerSlice,
				cc.cfg.period(endpointSliceChangeMinSyncDelay))
			if err != nil {
				return nil, err
			}
			c.syncKey = cc.cfg.observedSync(EndpointSliceControllerName, "endpoint_slice", &c.why,
				namespacedObject("v1", "Service"), c.sync)
			return c.Run, nil
		}}
}
