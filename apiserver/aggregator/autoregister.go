package aggregator

import (
	"context"
	"reflect"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	listers "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
)

// The label that marks an APIService the control plane manages, and its
// two values, as upstream's autoregister controller sets them.
const (
	AutoRegisterManagedLabel = "kube-aggregator.kubernetes.io/automanaged"
	// ManageOnStart: created at start if missing, deleted at start if no
	// longer wanted, left alone afterwards (kube-apiserver's own groups).
	ManageOnStart = "onstart"
	// ManageContinuously: kept equal to what is wanted at all times (one
	// per CRD group-version).
	ManageContinuously = "true"
)

// AutoRegisterController makes the APIServices in the cluster match the
// ones the control plane wants (AddAPIServiceToSync...), as upstream's
// autoregister controller: a wanted one that is missing is created, a
// managed one that is no longer wanted is deleted, and a managed one
// whose spec differs is updated; an APIService without the managed label
// is never touched. Its methods are safe for concurrent use.
type AutoRegisterController struct {
	client Client
	lister listers.APIServiceLister
	synced cache.DoneChecker
	queue  workqueue.TypedRateLimitingInterface[string]

	mu      sync.RWMutex
	wanted  map[string]*apiregv1.APIService
	synced1 map[string]bool // names synced successfully at least once
	atStart map[string]bool // names that existed when Run began
	startMu sync.Mutex
}

// NewAutoRegisterController watches informer (APIServices) and writes
// through client.
func NewAutoRegisterController(informer cache.SharedIndexInformer, client Client) (*AutoRegisterController, error) {
	c := &AutoRegisterController{
		client: client,
		lister: listers.NewAPIServiceLister(informer.GetIndexer()),
		synced: informer.HasSyncedChecker(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "autoregister"}),
		wanted: map[string]*apiregv1.APIService{}, synced1: map[string]bool{}, atStart: map[string]bool{},
	}
	if _, err := informer.AddEventHandler(nameHandler(c.queue.Add)); err != nil {
		return nil, err
	}
	return c, nil
}

// AddAPIServiceToSyncOnStart wants a, managed "onstart".
func (c *AutoRegisterController) AddAPIServiceToSyncOnStart(a *apiregv1.APIService) {
	c.want(a, ManageOnStart)
}

// AddAPIServiceToSync wants a, managed continuously.
func (c *AutoRegisterController) AddAPIServiceToSync(a *apiregv1.APIService) {
	c.want(a, ManageContinuously)
}

func (c *AutoRegisterController) want(in *apiregv1.APIService, how string) {
	a := in.DeepCopy()
	if a.Labels == nil {
		a.Labels = map[string]string{}
	}
	a.Labels[AutoRegisterManagedLabel] = how
	c.mu.Lock()
	c.wanted[a.Name] = a
	c.mu.Unlock()
	c.queue.Add(a.Name)
}

// RemoveAPIServiceToSync no longer wants the APIService called name.
func (c *AutoRegisterController) RemoveAPIServiceToSync(name string) {
	c.mu.Lock()
	delete(c.wanted, name)
	c.mu.Unlock()
	c.queue.Add(name)
}

// Run waits for the informer, notes which APIServices exist at start and
// syncs until ctx is done.
func (c *AutoRegisterController) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitFor(ctx, "", c.synced) {
		return
	}
	if all, err := c.lister.List(labels.Everything()); err == nil {
		c.mu.Lock()
		for _, a := range all {
			c.atStart[a.Name] = true
		}
		c.mu.Unlock()
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for processNext(c.queue, func(name string) error { return c.check(ctx, name) }) {
	}
}

func managedAs(a *apiregv1.APIService) string {
	if a == nil {
		return ""
	}
	return a.Labels[AutoRegisterManagedLabel]
}

// check brings the APIService called name to what is wanted, with
// upstream's decision table.
func (c *AutoRegisterController) check(ctx context.Context, name string) (err error) {
	c.mu.RLock()
	desired, done, atStart := c.wanted[name], c.synced1[name], c.atStart[name]
	c.mu.RUnlock()
	if !done {
		defer func() {
			if err == nil {
				c.mu.Lock()
				c.synced1[name] = true
				c.mu.Unlock()
			}
		}()
	}
	curr, err := c.lister.Get(name)
	missing := apierrors.IsNotFound(err)
	switch {
	case err != nil && !missing:
		return err
	case missing && desired == nil:
		return nil
	case managedAs(desired) == ManageOnStart && done:
		// Managed only on start, and this start is over.
		return nil
	case missing:
		if _, err := c.client.Create(ctx, desired); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	case managedAs(curr) != ManageOnStart && managedAs(curr) != ManageContinuously:
		return nil // not ours
	case managedAs(curr) == ManageOnStart && (!atStart || done):
		return nil
	case desired == nil:
		if err := c.client.Delete(ctx, curr.Name, curr.UID); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
		return nil
	case reflect.DeepEqual(curr.Spec, desired.Spec):
		return nil
	}
	a := curr.DeepCopy()
	a.Spec = desired.Spec
	if _, err := c.client.Update(ctx, a); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return err
	}
	return nil
}
