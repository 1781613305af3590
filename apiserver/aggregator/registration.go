package aggregator

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	listers "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
)

// RegistrationController keeps a Handler serving exactly the APIServices
// that exist, as upstream's APIServiceRegistrationController: every
// change of an APIService (its availability too) gives the Handler its
// new version; a deleted one is removed.
type RegistrationController struct {
	handler   *Handler
	lister    listers.APIServiceLister
	synced    cache.DoneChecker
	queue     workqueue.TypedRateLimitingInterface[string]
	initiated chan struct{}
}

// NewRegistrationController watches informer (APIServices) for handler.
func NewRegistrationController(informer cache.SharedIndexInformer, handler *Handler) (*RegistrationController, error) {
	c := &RegistrationController{
		handler: handler,
		lister:  listers.NewAPIServiceLister(informer.GetIndexer()),
		synced:  informer.HasSyncedChecker(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "APIServiceRegistrationController"}),
		initiated: make(chan struct{}),
	}
	if _, err := informer.AddEventHandler(nameHandler(c.queue.Add)); err != nil {
		return nil, err
	}
	return c, nil
}

// nameHandler calls add with the name of every APIService added, updated
// or deleted.
func nameHandler(add func(string)) cache.ResourceEventHandler {
	name := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			add(key)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: name, UpdateFunc: func(_, obj any) { name(obj) }, DeleteFunc: name}
}

// Initiated is closed once the Handler serves every APIService that
// existed when the informer synced: until then, a request for a
// group-version could be delegated that an APIService proxies.
func (c *RegistrationController) Initiated() <-chan struct{} { return c.initiated }

// Run installs the existing APIServices, closes Initiated, then follows
// changes until ctx is done.
func (c *RegistrationController) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitFor(ctx, "", c.synced) {
		return
	}
	all, err := c.lister.List(labels.Everything())
	if err == nil {
		for _, a := range all {
			c.handler.AddAPIService(a)
		}
	}
	close(c.initiated)
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for processNext(c.queue, c.sync) {
	}
}

// sync gives the Handler the current state of the APIService called name.
func (c *RegistrationController) sync(name string) error {
	a, err := c.lister.Get(name)
	switch {
	case apierrors.IsNotFound(err):
		c.handler.RemoveAPIService(name)
		return nil
	case err != nil:
		return err
	}
	c.handler.AddAPIService(a)
	return nil
}

// processNext runs sync on the queue's next key; false once the queue is
// shut down. A failed key is reported (to klog, which kubesim sends to
// its log file) and retried with the queue's rate limiting, unless it
// failed because the controller is stopping.
func processNext(q workqueue.TypedRateLimitingInterface[string], sync func(string) error) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	if err := sync(key); err != nil {
		if errors.Is(err, context.Canceled) {
			// The controller is stopping: nothing to retry or report.
			q.Forget(key)
			return true
		}
		utilruntime.HandleError(fmt.Errorf("%v failed with: %w", key, err))
		q.AddRateLimited(key)
		return true
	}
	q.Forget(key)
	return true
}
