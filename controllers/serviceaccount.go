package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

const (
	// ServiceAccountControllerName is upstream's name for the controller
	// that makes the default ServiceAccount of each namespace.
	ServiceAccountControllerName = "service-account-controller"
	// DefaultServiceAccountName is the ServiceAccount every namespace
	// gets, and that a pod without spec.serviceAccountName runs as.
	DefaultServiceAccountName = "default"
)

// ServiceAccountsController makes sure every active namespace has the
// ServiceAccount "default", and makes it again when it is deleted, as
// upstream's ServiceAccountsController (pkg/controller/serviceaccount).
// A namespace that is not Active (being deleted) gets nothing. Create it
// with NewServiceAccountsController, run it with Run.
type ServiceAccountsController struct {
	client   kubernetes.Interface
	saLister corelisters.ServiceAccountLister
	nsLister corelisters.NamespaceLister
	synced   []cache.DoneChecker
	queue    workqueue.TypedRateLimitingInterface[string]
}

// NewServiceAccountsController sets up the controller's informers on
// factory: a namespace added or updated, or a ServiceAccount deleted,
// queues the namespace's name.
func NewServiceAccountsController(factory informers.SharedInformerFactory, client kubernetes.Interface) (*ServiceAccountsController, error) {
	saInf, nsInf := factory.Core().V1().ServiceAccounts(), factory.Core().V1().Namespaces()
	c := &ServiceAccountsController{
		client: client, saLister: saInf.Lister(), nsLister: nsInf.Lister(),
		synced: []cache.DoneChecker{saInf.Informer().HasSyncedChecker(), nsInf.Informer().HasSyncedChecker()},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "serviceaccount"}),
	}
	if _, err := saInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: c.serviceAccountDeleted,
	}); err != nil {
		return nil, err
	}
	if _, err := nsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.namespaceChanged,
		UpdateFunc: func(_, cur any) { c.namespaceChanged(cur) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informers, then syncs namespaces with workers
// goroutines until ctx is done.
func (c *ServiceAccountsController) Run(ctx context.Context, workers int) {
	runWorkers(ctx, c.queue, c.synced, workers, c.sync)
}

func (c *ServiceAccountsController) namespaceChanged(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		c.queue.Add(ns.Name)
	}
}

func (c *ServiceAccountsController) serviceAccountDeleted(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	sa, ok := obj.(*corev1.ServiceAccount)
	if !ok {
		return
	}
	c.queue.Add(sa.Namespace)
}

// sync creates the default ServiceAccount of the namespace name if the
// namespace is Active and the informer does not know the account. A
// create that finds it there already, or the namespace terminating, is
// not an error.
func (c *ServiceAccountsController) sync(ctx context.Context, name string) error {
	ns, err := c.nsLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	switch _, err := c.saLister.ServiceAccounts(name).Get(DefaultServiceAccountName); {
	case err == nil:
		return nil
	case !apierrors.IsNotFound(err):
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceAccountName, Namespace: name}}
	_, err = c.client.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{})
	if err == nil || apierrors.IsAlreadyExists(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return nil
	}
	return err
}

// newServiceAccountControllerDescriptor is the service-account-controller's
// entry in newControllerDescriptors: one worker.
func newServiceAccountControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: ServiceAccountControllerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := cc.client(ServiceAccountControllerName)
			if err != nil {
				return nil, err
			}
			c, err := NewServiceAccountsController(cc.factory, client)
			if err != nil {
				return nil, err
			}
			return c.Run, nil
		}}
}
