package aggregator

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	listers "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
)

// LocalAvailabilityController marks every local APIService (no
// spec.service) Available=True, reason Local, as upstream's
// local-available controller: kube-apiserver itself serves them.
type LocalAvailabilityController struct {
	client Client
	lister listers.APIServiceLister
	synced cache.DoneChecker
	queue  workqueue.TypedRateLimitingInterface[string]
}

// NewLocalAvailabilityController watches informer (APIServices) and
// writes status through client.
func NewLocalAvailabilityController(informer cache.SharedIndexInformer, client Client) (*LocalAvailabilityController, error) {
	c := &LocalAvailabilityController{
		client: client,
		lister: listers.NewAPIServiceLister(informer.GetIndexer()),
		synced: informer.HasSyncedChecker(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "LocalAvailabilityController"}),
	}
	if _, err := informer.AddEventHandler(nameHandler(c.queue.Add)); err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs until ctx is done.
func (c *LocalAvailabilityController) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitFor(ctx, "", c.synced) {
		return
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for processNext(c.queue, func(name string) error { return c.sync(ctx, name) }) {
	}
}

func (c *LocalAvailabilityController) sync(ctx context.Context, name string) error {
	orig, err := c.lister.Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case orig.Spec.Service != nil:
		return nil // the remote controller's
	}
	a := orig.DeepCopy()
	helper.SetAPIServiceCondition(a, helper.NewLocalAvailableAPIServiceCondition())
	return updateStatus(ctx, c.client, orig, a)
}

// updateStatus writes a's status if it differs from orig's: the
// controllers resync often and must not write what has not changed.
func updateStatus(ctx context.Context, client Client, orig, a *apiregv1.APIService) error {
	if equality.Semantic.DeepEqual(orig.Status, a.Status) {
		return nil
	}
	_, err := client.UpdateStatus(ctx, a)
	return err
}
