package apiextensionsserver

import (
	"context"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiextensions"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The post-start hooks of the apiextensions server, under upstream's
// names.
const (
	// HookAPIExtensionsInformers starts the watch of the CRDs that feeds
	// the handler and the controllers (upstream: the CRD informer).
	HookAPIExtensionsInformers = "start-apiextensions-informers"
	// HookAPIExtensionsControllers starts the naming, establishing,
	// finalizer and OpenAPI controllers.
	HookAPIExtensionsControllers = "start-apiextensions-controllers"
	// HookCRDInformerSynced waits until the handler knows every stored
	// CRD, so that a ready server serves their custom resources.
	HookCRDInformerSynced = "crd-informer-synced"
)

// crdController does for every CRD what upstream's apiextensions
// controllers do, one CRD at a time from one workqueue: the naming
// controller (accepted names, NamesAccepted), the establishing controller
// (Established), the finalizer (a deleted CRD's custom resources go, then
// the CRD) and the OpenAPI controller (the documents of the CRD
// group-versions). Upstream runs them as four controllers on one shared
// informer; kubesim runs their syncs in that order from one queue. They
// write through the registry directly, where upstream's use a loopback
// client. Discovery needs no controller here: it is computed from the
// handler's CRDs on each request.
type crdController struct {
	s     *apiserver.Server
	h     *crdHandler
	queue workqueue.TypedRateLimitingInterface[string]
	// published are the group-versions whose OpenAPI document the
	// controller serves (only its worker touches it).
	published map[schema.GroupVersion]bool
}

func newCRDController(s *apiserver.Server, h *crdHandler) *crdController {
	return &crdController{s: s, h: h, published: map[schema.GroupVersion]bool{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "apiextensions"})}
}

// addHooks registers the controller's post-start hooks.
func (c *crdController) addHooks() error {
	if err := c.s.AddPostStartHook(HookAPIExtensionsInformers, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(c.watchCRDs)
		ctx.Go(c.h.caches.run)
		return nil
	}); err != nil {
		return err
	}
	if err := c.s.AddPostStartHook(HookAPIExtensionsControllers, func(ctx apiserver.PostStartHookContext) error {
		ctx.Go(c.run)
		return nil
	}); err != nil {
		return err
	}
	return c.s.AddPostStartHook(HookCRDInformerSynced, func(ctx apiserver.PostStartHookContext) error {
		select {
		case <-c.h.synced:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// watchCRDs keeps the handler's CRDs current until ctx is done, the
// WatchList way (the stored CRDs, a bookmark marking their end, then the
// changes), watching again after any error; every CRD that changes is
// queued.
func (c *crdController) watchCRDs(ctx context.Context) {
	for ctx.Err() == nil {
		c.watchOnce(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *crdController) watchOnce(ctx context.Context) {
	yes := true
	w, err := c.s.Registry().CustomResourceDefinitions.Watch(ctx, "", &metainternalversion.ListOptions{
		SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
	})
	if err != nil {
		return
	}
	defer w.Stop()
	initial := map[string]*apiextensionsv1.CustomResourceDefinition{}
	inInitial := true
	for ev := range w.ResultChan() {
		crd, ok := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
		switch {
		case ev.Type == watch.Error || !ok:
			return
		case inInitial && ev.Type == watch.Added:
			initial[crd.Name] = crd
		case inInitial && ev.Type == watch.Bookmark && crd.Annotations[metav1.InitialEventsAnnotationKey] == "true":
			inInitial = false
			c.replace(initial)
		case ev.Type == watch.Added || ev.Type == watch.Modified:
			c.h.mu.Lock()
			c.h.crds[crd.Name] = crd
			c.h.mu.Unlock()
			c.queue.Add(crd.Name)
		case ev.Type == watch.Deleted:
			c.h.mu.Lock()
			delete(c.h.crds, crd.Name)
			c.h.mu.Unlock()
			c.queue.Add(crd.Name)
			c.queueGroup(crd.Spec.Group) // a name it held may be free now
		}
	}
}

// replace installs the full state a watch started with and queues every
// CRD, present or gone.
func (c *crdController) replace(crds map[string]*apiextensionsv1.CustomResourceDefinition) {
	c.h.mu.Lock()
	old := c.h.crds
	c.h.crds = crds
	c.h.mu.Unlock()
	for name := range old {
		c.queue.Add(name)
	}
	for name := range crds {
		c.queue.Add(name)
	}
	select {
	case <-c.h.synced:
	default:
		close(c.h.synced)
	}
}

// queueGroup queues every CRD of group.
func (c *crdController) queueGroup(group string) {
	c.h.mu.RLock()
	defer c.h.mu.RUnlock()
	for name, crd := range c.h.crds {
		if crd.Spec.Group == group {
			c.queue.Add(name)
		}
	}
}

// run works the queue until ctx is done.
func (c *crdController) run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for {
		name, quit := c.queue.Get()
		if quit {
			return
		}
		if err := c.sync(ctx, name); err != nil && ctx.Err() == nil {
			c.queue.AddRateLimited(name)
		} else {
			c.queue.Forget(name)
		}
		c.queue.Done(name)
	}
}

// sync runs the controllers' syncs for the CRD called name.
func (c *crdController) sync(ctx context.Context, name string) error {
	defer c.syncOpenAPI()
	crd := c.h.crd(name)
	if crd == nil {
		c.h.forget(name)
		return nil
	}
	if err := c.syncNames(ctx, crd); err != nil {
		return err
	}
	if err := c.syncEstablished(ctx, crd); err != nil {
		return err
	}
	return c.syncFinalizer(ctx, crd)
}

// updateStatus writes crd's status (and metadata) as mutate leaves the
// current stored CRD; a CRD gone meanwhile is not an error.
func (c *crdController) updateStatus(ctx context.Context, name string, mutate func(crd *apiextensionsv1.CustomResourceDefinition)) error {
	_, _, err := c.s.Registry().CustomResourceDefinitionStatus.Update(ctx, "", name, func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
		crd := cur.(*apiextensionsv1.CustomResourceDefinition)
		if crd.ResourceVersion == "" {
			return nil, apierrors.NewNotFound(registry.CustomResourceDefinitions.GroupResource(), name)
		}
		mutate(crd)
		return crd, nil
	}, nil, nil, registry.Options{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// syncNames is the naming controller: the accepted names, NamesAccepted
// and the Established condition it leaves (apiextensions.AcceptNames).
func (c *crdController) syncNames(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	all := c.h.groupCRDs(crd.Spec.Group)
	names, accepted, est := apiextensions.AcceptNames(crd, all)
	if equalNames(names, crd.Status.AcceptedNames) &&
		apihelpers.IsCRDConditionEquivalent(&accepted, apihelpers.FindCRDCondition(crd, apiextensionsv1.NamesAccepted)) &&
		apihelpers.IsCRDConditionEquivalent(&est, apihelpers.FindCRDCondition(crd, apiextensionsv1.Established)) {
		return nil
	}
	return c.updateStatus(ctx, crd.Name, func(cur *apiextensionsv1.CustomResourceDefinition) {
		cur.Status.AcceptedNames = names
		apihelpers.SetCRDCondition(cur, accepted)
		apihelpers.SetCRDCondition(cur, est)
	})
}

// syncEstablished is the establishing controller: once the names are
// accepted, Established turns True (reason InitialNamesAccepted).
func (c *crdController) syncEstablished(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) || apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		return nil
	}
	return c.updateStatus(ctx, crd.Name, func(cur *apiextensionsv1.CustomResourceDefinition) {
		apihelpers.SetCRDCondition(cur, apiextensions.EstablishedCondition())
	})
}

// groupCRDs lists the handler's CRDs of group.
func (c *crdHandler) groupCRDs(group string) []*apiextensionsv1.CustomResourceDefinition {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range c.crds {
		if crd.Spec.Group == group {
			out = append(out, crd)
		}
	}
	return out
}

// equalNames compares accepted names as upstream's controller does
// (nil and empty lists alike).
func equalNames(a, b apiextensionsv1.CustomResourceDefinitionNames) bool {
	return equality.Semantic.DeepEqual(a, b)
}
