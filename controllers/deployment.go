package controllers

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

var deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")

// DeploymentController rolls Deployments out through ReplicaSets, as
// upstream's DeploymentController. Create it with
// NewDeploymentController, run it with Run.
type DeploymentController struct {
	client    kubernetes.Interface
	dLister   appslisters.DeploymentLister
	rsLister  appslisters.ReplicaSetLister
	podLister corelisters.PodLister
	synced    []cache.DoneChecker
	queue     workqueue.TypedRateLimitingInterface[string]
	// triggers and syncKey report the controller's actions (observe.go).
	triggers eventTriggers
	syncKey  func(context.Context, string) error
	recorder record.EventRecorder // set by Run (deployment_events.go)
}

// NewDeploymentController sets up the controller's informers on factory.
func NewDeploymentController(factory informers.SharedInformerFactory, client kubernetes.Interface) (*DeploymentController, error) {
	dInf, rsInf, podInf := factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
	c := &DeploymentController{
		client: client, dLister: dInf.Lister(), rsLister: rsInf.Lister(), podLister: podInf.Lister(),
		synced: []cache.DoneChecker{dInf.Informer().HasSyncedChecker(), rsInf.Informer().HasSyncedChecker(), podInf.Informer().HasSyncedChecker()},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployment"}),
	}
	c.syncKey = c.sync
	if _, err := dInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueueBecause(obj, "add", obj) },
		UpdateFunc: func(_, cur any) { c.enqueueBecause(cur, "update", cur) },
		DeleteFunc: c.enqueue,
	}); err != nil {
		return nil, err
	}
	if _, err := rsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.addReplicaSet, UpdateFunc: c.updateReplicaSet, DeleteFunc: c.deleteReplicaSet,
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: c.deletePod}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informers, then syncs with workers goroutines until
// ctx is done.
func (c *DeploymentController) Run(ctx context.Context, workers int) {
	defer c.startEvents(ctx)()
	runWorkers(ctx, c.queue, c.synced, workers, c.syncKey)
}

// enqueueBecause queues the Deployment d, noting the informer event verb
// about obj (d itself, or one of its ReplicaSets) as the reason.
func (c *DeploymentController) enqueueBecause(d any, verb string, obj any) {
	key, err := cache.MetaNamespaceKeyFunc(d)
	if err != nil {
		return
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		c.triggers.note(key, triggerOf(verb, o, "apps/v1", deploymentKind.Kind))
	case *appsv1.ReplicaSet:
		c.triggers.note(key, triggerOf(verb, o, "apps/v1", rsKind.Kind))
	case *corev1.Pod:
		c.triggers.note(key, podTrigger(verb, o))
	}
	c.queue.Add(key)
}

func (c *DeploymentController) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

func (c *DeploymentController) enqueueAfter(d *appsv1.Deployment, after time.Duration) {
	if key, err := cache.MetaNamespaceKeyFunc(d); err == nil {
		c.queue.AddAfter(key, after)
	}
}

// ownerOf returns the Deployment ref names, if it is still the one of
// ref's UID.
func (c *DeploymentController) ownerOf(namespace string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref == nil || ref.Kind != deploymentKind.Kind {
		return nil
	}
	d, err := c.dLister.Deployments(namespace).Get(ref.Name)
	if err != nil || d.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentsMatching returns the Deployments whose selector matches the
// orphan ReplicaSet's labels.
func (c *DeploymentController) deploymentsMatching(rs *appsv1.ReplicaSet) []*appsv1.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	all, err := c.dLister.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.Deployment
	for _, d := range all {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(rs.Labels)) {
			out = append(out, d)
		}
	}
	return out
}

func (c *DeploymentController) addReplicaSet(obj any) {
	rs := obj.(*appsv1.ReplicaSet)
	if rs.DeletionTimestamp != nil {
		c.deleteReplicaSet(rs)
		return
	}
	if ref := metav1.GetControllerOf(rs); ref != nil {
		if d := c.ownerOf(rs.Namespace, ref); d != nil {
			c.enqueueBecause(d, "add", rs)
		}
		return
	}
	for _, d := range c.deploymentsMatching(rs) {
		c.enqueueBecause(d, "add", rs)
	}
}

func (c *DeploymentController) updateReplicaSet(oldObj, curObj any) {
	old, cur := oldObj.(*appsv1.ReplicaSet), curObj.(*appsv1.ReplicaSet)
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	oldRef, curRef := metav1.GetControllerOf(old), metav1.GetControllerOf(cur)
	if oldRef != nil && (curRef == nil || *oldRef != *curRef) {
		if d := c.ownerOf(old.Namespace, oldRef); d != nil {
			c.enqueueBecause(d, "update", cur)
		}
	}
	if curRef != nil {
		if d := c.ownerOf(cur.Namespace, curRef); d != nil {
			c.enqueueBecause(d, "update", cur)
		}
		return
	}
	if !labels.Equals(old.Labels, cur.Labels) || oldRef != nil {
		for _, d := range c.deploymentsMatching(cur) {
			c.enqueueBecause(d, "update", cur)
		}
	}
}

func (c *DeploymentController) deleteReplicaSet(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
		if rs, ok = tomb.Obj.(*appsv1.ReplicaSet); !isTomb || !ok {
			return
		}
	}
	if d := c.ownerOf(rs.Namespace, metav1.GetControllerOf(rs)); d != nil {
		c.enqueueBecause(d, "delete", rs)
	}
}

// deletePod wakes a Recreate Deployment once a pod of its old
// ReplicaSets is gone: it waits for all of them before it scales up.
func (c *DeploymentController) deletePod(obj any) {
	pod, err := podFromDeleted(obj)
	if err != nil {
		return
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != rsKind.Kind {
		return
	}
	rs, err := c.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	if d := c.ownerOf(rs.Namespace, metav1.GetControllerOf(rs)); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		c.enqueueBecause(d, "delete", pod)
	}
}

// podsByReplicaSet returns d's pods grouped by the UID of their
// ReplicaSet, for the ReplicaSets of rss.
func (c *DeploymentController) podsByReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (map[string][]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	pods, err := c.podLister.Pods(d.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	out := map[string][]*corev1.Pod{}
	for _, rs := range rss {
		out[string(rs.UID)] = nil
	}
	for _, p := range pods {
		if ref := metav1.GetControllerOf(p); ref != nil {
			if _, ok := out[string(ref.UID)]; ok {
				out[string(ref.UID)] = append(out[string(ref.UID)], p)
			}
		}
	}
	return out, nil
}

// newDeploymentControllerDescriptor is the deployment-controller's entry in
// newControllerDescriptors: Config.Workers workers; its writes and
// decisions are reported as Actions.
func newDeploymentControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: DeploymentControllerName, workers: defaultWorkers,
		build: func(cc *controllerContext) (runFunc, error) {
			client, err := kubernetes.NewForConfig(observeWrites(cc.restConfig(DeploymentControllerName)))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", DeploymentControllerName, err)
			}
			c, err := NewDeploymentController(cc.factory, client)
			if err != nil {
				return nil, err
			}
			c.syncKey = cc.cfg.observedSync(DeploymentControllerName, "deployment", &c.triggers,
				namespacedObject("apps/v1", deploymentKind.Kind), c.sync)
			return c.Run, nil
		}}
}
