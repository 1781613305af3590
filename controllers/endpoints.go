package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// Upstream's endpoints controller names.
const (
	// EndpointsControllerName is the controller's name and service
	// account ("endpoint-controller", singular, as upstream's).
	EndpointsControllerName = "endpoint-controller"
	// LabelEndpointsManagedBy is the label it puts on the Endpoints it
	// manages, with EndpointsControllerName as its value.
	LabelEndpointsManagedBy = "endpoints.kubernetes.io/managed-by"
	// EndpointsOverCapacityTruncated is the value of the
	// endpoints.kubernetes.io/over-capacity annotation past 1000
	// addresses.
	EndpointsOverCapacityTruncated = "truncated"
)

// EndpointsController keeps a core/v1 Endpoints object named after each
// Service with a selector, as upstream's pkg/controller/endpoint (the
// API is deprecated in favour of EndpointSlices, the controller still
// runs): the ready pods' addresses in addresses, the others in
// notReadyAddresses (all in addresses with publishNotReadyAddresses),
// per resolved port, at most 1000 of them. Pods being deleted are left
// out unless publishNotReadyAddresses. As with the EndpointSlice
// controller, pod events find their Services in the handler. Create it
// with NewEndpointsController, run it with Run.
type EndpointsController struct {
	client       kubernetes.Interface
	svcLister    corelisters.ServiceLister
	podLister    corelisters.PodLister
	epLister     corelisters.EndpointsLister
	synced       []cache.DoneChecker
	queue        workqueue.TypedRateLimitingInterface[string]
	stale        *staleEndpoints
	triggerTimes *endpointsliceutil.TriggerTimeTracker
	why          eventTriggers
	// syncKey is sync, wrapped by the manager to report actions.
	syncKey func(context.Context, string) error
}

// NewEndpointsController sets up the controller's informers on factory.
func NewEndpointsController(factory informers.SharedInformerFactory, client kubernetes.Interface) (*EndpointsController, error) {
	svcInf, podInf, epInf := factory.Core().V1().Services(), factory.Core().V1().Pods(), factory.Core().V1().Endpoints()
	c := &EndpointsController{
		client: client, svcLister: svcInf.Lister(), podLister: podInf.Lister(), epLister: epInf.Lister(),
		synced: []cache.DoneChecker{svcInf.Informer().HasSyncedChecker(), podInf.Informer().HasSyncedChecker(), epInf.Informer().HasSyncedChecker()},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "endpoint"}),
		stale: &staleEndpoints{rv: map[string]string{}}, triggerTimes: endpointsliceutil.NewTriggerTimeTracker(),
	}
	c.syncKey = c.sync
	_, err1 := svcInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueue(obj, "add", "Service") },
		UpdateFunc: func(_, cur any) { c.enqueue(cur, "update", "Service") },
		DeleteFunc: func(obj any) { c.enqueue(obj, "delete", "Service") },
	})
	_, err2 := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.podChanged(nil, obj, "add") },
		UpdateFunc: func(old, cur any) { c.podChanged(old, cur, "update") },
		DeleteFunc: func(obj any) { c.podChanged(obj, nil, "delete") },
	})
	// An Endpoints deleted by someone else is made again.
	_, err3 := epInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) { c.enqueue(obj, "delete", "Endpoints") },
	})
	return c, errors.Join(err1, err2, err3)
}

// Run waits for the informers, queues every Endpoints object once (one
// whose Service is gone is deleted, as upstream's
// checkLeftoverEndpoints), then syncs with workers goroutines until ctx
// is done; it returns when they have all stopped.
func (c *EndpointsController) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if cache.WaitFor(ctx, "", c.synced...) {
			c.queueLeftovers()
		}
	}()
	runWorkers(ctx, c.queue, c.synced, workers, c.syncKey)
	wg.Wait()
}

// queueLeftovers queues every Endpoints object but leader election
// records.
func (c *EndpointsController) queueLeftovers() {
	list, err := c.epLister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, ep := range list {
		if _, ok := ep.Annotations["control-plane.alpha.kubernetes.io/leader"]; ok {
			continue
		}
		c.queue.Add(ep.Namespace + "/" + ep.Name)
	}
}

func (c *EndpointsController) enqueue(obj any, verb, kind string) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	if m, err := metaOf(obj); err == nil {
		c.why.note(key, triggerOf(verb, m, "v1", kind))
	}
	c.queue.Add(key)
}

func (c *EndpointsController) podChanged(old, cur any, verb string) {
	queueServicesOfPod(c.svcLister, &c.why, c.queue, old, cur, verb)
}

// metaOf is the object (or the tombstone's object)'s metadata.
func metaOf(obj any) (metav1.Object, error) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	return m, nil
}

// staleEndpoints remembers, per Endpoints, the resourceVersion the
// controller last replaced: seeing it again in the informer means the
// cache has not caught up with the controller's own write yet
// (upstream's staleEndpointsTracker).
type staleEndpoints struct {
	mu sync.Mutex
	rv map[string]string
}

func (s *staleEndpoints) mark(ep *corev1.Endpoints) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv[ep.Namespace+"/"+ep.Name] = ep.ResourceVersion
}

func (s *staleEndpoints) isStale(ep *corev1.Endpoints) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv, ok := s.rv[ep.Namespace+"/"+ep.Name]
	return ok && rv == ep.ResourceVersion
}

func (s *staleEndpoints) forget(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rv, namespace+"/"+name)
}

// sameSubsets compares subsets ignoring the targets' resourceVersions.
func sameSubsets(a, b []corev1.EndpointSubset) bool {
	strip := func(ss []corev1.EndpointSubset) []corev1.EndpointSubset {
		out := make([]corev1.EndpointSubset, len(ss))
		for i := range ss {
			out[i] = *ss[i].DeepCopy()
			for _, list := range [][]corev1.EndpointAddress{out[i].Addresses, out[i].NotReadyAddresses} {
				for j := range list {
					if list[j].TargetRef != nil {
						list[j].TargetRef.ResourceVersion = ""
					}
				}
			}
		}
		return out
	}
	return apiequality.Semantic.DeepEqual(strip(a), strip(b))
}

// newEndpointsControllerDescriptor is the endpoint-controller's entry in
// newControllerDescriptors: Config.Workers workers; its writes and
// decisions are reported as Actions.
func newEndpointsControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: EndpointsControllerName, workers: defaultWorkers,
		build: func(cc *controllerContext) (runFunc, error) {
			// Its writes are recorded in the actions it reports.
			client, err := kubernetes.NewForConfig(observeWrites(cc.restConfig(EndpointsControllerName)))
			if err != nil {
				return nil, err
			}
			c, err := NewEndpointsController(cc.factory, client)
			if err != nil {
				return nil, err
			}
			c.syncKey = cc.cfg.observedSync(EndpointsControllerName, "endpoint", &c.why,
				namespacedObject("v1", "Service"), c.sync)
			return c.Run, nil
		}}
}
