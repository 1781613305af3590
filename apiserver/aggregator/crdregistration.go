package aggregator

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Registrar is the part of AutoRegisterController the CRD registration
// controller uses.
type Registrar interface {
	AddAPIServiceToSync(a *apiregv1.APIService)
	RemoveAPIServiceToSync(name string)
}

// CRDRegistrationController wants one local APIService for every
// group-version some CRD serves, and none for the others, as upstream's
// crdregistration controller (kube-apiserver's, not the aggregator's):
// groupPriorityMinimum 1000, versionPriority 100.
type CRDRegistrationController struct {
	informer cache.SharedIndexInformer
	reg      Registrar
	queue    workqueue.TypedRateLimitingInterface[schema.GroupVersion]

	initial chan struct{}
}

// NewCRDRegistrationController watches informer (CustomResourceDefinitions)
// and tells reg which APIServices to keep.
func NewCRDRegistrationController(informer cache.SharedIndexInformer, reg Registrar) (*CRDRegistrationController, error) {
	c := &CRDRegistrationController{
		informer: informer, reg: reg, initial: make(chan struct{}),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[schema.GroupVersion](),
			workqueue.TypedRateLimitingQueueConfig[schema.GroupVersion]{Name: "crd_autoregistration_controller"}),
	}
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			for _, v := range crd.Spec.Versions {
				c.queue.Add(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
			}
		}
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, DeleteFunc: enqueue,
		UpdateFunc: func(old, obj any) { enqueue(old); enqueue(obj) },
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// WaitForInitialSync blocks until the CRDs that existed at start have
// their APIServices wanted (or ctx is done), so that the autoregister
// controller's first pass does not delete them.
func (c *CRDRegistrationController) WaitForInitialSync(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-c.initial:
	}
}

// Run processes the existing CRDs, reports the initial sync, and follows
// changes until ctx is done.
func (c *CRDRegistrationController) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitFor(ctx, "", c.informer.HasSyncedChecker()) {
		return
	}
	for _, obj := range c.informer.GetStore().List() {
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			for _, v := range crd.Spec.Versions {
				c.sync(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
			}
		}
	}
	close(c.initial)
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for {
		gv, quit := c.queue.Get()
		if quit {
			return
		}
		c.sync(gv)
		c.queue.Done(gv)
	}
}

// sync wants the APIService of gv if a CRD of gv's group serves gv's
// version, and drops it otherwise.
func (c *CRDRegistrationController) sync(gv schema.GroupVersion) {
	for _, obj := range c.informer.GetStore().List() {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok || crd.Spec.Group != gv.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gv.Version && v.Served {
				c.reg.AddAPIServiceToSync(CRDAPIService(gv))
				return
			}
		}
	}
	c.reg.RemoveAPIServiceToSync(APIServiceName(gv))
}
