package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kubesim/kubesim/internal/informertrim"
)

// DefaultGCResyncPeriod is how often the garbage collector asks
// discovery again for resources to watch (kube-controller-manager's 30
// s, at speed 1): a CustomResourceDefinition's objects join the graph
// that much later.
const DefaultGCResyncPeriod = 30 * time.Second

// minGCResyncPeriod bounds the rediscovery period from below at high
// speeds and at speed 0, where DefaultGCResyncPeriod divided by 1000 is
// 30 ms: each rediscovery is a GET of /api, /apis and every group
// version, which made some 3,000 requests in 25 s of a benchmark.
const minGCResyncPeriod = time.Second

// ignoredResources are not watched, as upstream's defaults: events
// carry no ownerReferences worth a graph.
var ignoredResources = map[schema.GroupResource]bool{
	{Group: "", Resource: "events"}:              true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// GarbageCollector deletes objects whose owners are gone, as upstream's
// garbage collector: a graph of every object's ownerReferences, built
// from informers on every resource that can be listed, watched and
// deleted; an object whose owners are all gone is deleted with the
// propagation its own finalizers ask for; an owner with the
// foregroundDeletion finalizer loses it once no dependent that blocks it
// is left; an owner with the orphan finalizer loses it once its
// dependents no longer name it. Create it with NewGarbageCollector, run
// it with Run.
type GarbageCollector struct {
	discovery discovery.DiscoveryInterface
	dynamic   dynamic.Interface
	resync    time.Duration
	// typed are the manager's shared informers (nil: none), metadata
	// the collector's own informers of what typed has not got.
	typed    informers.SharedInformerFactory
	metadata metadatainformer.SharedInformerFactory
	graph    *ownerGraph

	mu       sync.Mutex
	mappings map[schema.GroupVersionKind]resourceMapping // kind → resource, from discovery
	watched  map[schema.GroupVersionResource]cache.SharedIndexInformer

	attemptToDelete workqueue.TypedRateLimitingInterface[types.UID]
	attemptToOrphan workqueue.TypedRateLimitingInterface[types.UID]
	// report, if set, receives the collector's actions; triggers are the
	// graph events that queued each UID (garbagecollector_observe.go).
	report   func(Action)
	triggers eventTriggers
}

// resourceMapping is where the objects of a kind are served.
type resourceMapping struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// NewGarbageCollector returns a collector that finds resources through
// disc, watches them as upstream's informer factory for the collector
// does (k8s.io/controller-manager/pkg/informerfactory): through typed,
// the manager's shared informers (nil: none), for the resources it
// serves, so that a pod is held once for every controller, and through
// metadata informers on meta (PartialObjectMetadata: names, owners,
// finalizers, no spec) for the rest, custom resources among them; it
// reads, patches and deletes them through dyn (the collector's own
// credentials), rediscovering every resync.
func NewGarbageCollector(disc discovery.DiscoveryInterface, dyn dynamic.Interface, typed informers.SharedInformerFactory, meta metadata.Interface, resync time.Duration) *GarbageCollector {
	gc := &GarbageCollector{
		discovery: disc, dynamic: dyn, resync: resync,
		typed: typed, metadata: metadatainformer.NewSharedInformerFactoryWithOptions(meta, 0, metadatainformer.WithTransform(informertrim.ManagedFields)),
		mappings: map[schema.GroupVersionKind]resourceMapping{},
		watched:  map[schema.GroupVersionResource]cache.SharedIndexInformer{},
		attemptToDelete: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.UID](),
			workqueue.TypedRateLimitingQueueConfig[types.UID]{Name: "garbage_collector_attempt_to_delete"}),
		attemptToOrphan: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.UID](),
			workqueue.TypedRateLimitingQueueConfig[types.UID]{Name: "garbage_collector_attempt_to_orphan"}),
	}
	gc.graph = newOwnerGraph(gc)
	return gc
}

// Run discovers the resources, starts their informers, waits for them,
// then runs workers for each queue until ctx is done; it rediscovers
// every resync meanwhile.
func (gc *GarbageCollector) Run(ctx context.Context, workers int) {
	defer gc.attemptToDelete.ShutDown()
	defer gc.attemptToOrphan.ShutDown()
	defer gc.metadata.Shutdown()
	for ctx.Err() == nil {
		if err := gc.discover(); err == nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(gc.resync):
		}
	}
	gc.startInformers(ctx)
	if !cache.WaitFor(ctx, "", gc.syncedCheckers()...) {
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			gc.runQueue(ctx, gc.attemptToDelete, gc.observed("garbage_collector_attempt_to_delete", gc.attemptToDeleteItem))
		}()
		go func() {
			defer wg.Done()
			gc.runQueue(ctx, gc.attemptToOrphan, gc.observed("garbage_collector_attempt_to_orphan", gc.attemptToOrphanItem))
		}()
	}
	gc.rediscover(ctx)
	gc.attemptToDelete.ShutDown()
	gc.attemptToOrphan.ShutDown()
	wg.Wait()
}

// rediscover asks discovery again every resync until ctx is done, and
// watches the resources that appeared.
func (gc *GarbageCollector) rediscover(ctx context.Context) {
	t := time.NewTicker(gc.resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if gc.discover() == nil {
				gc.startInformers(ctx)
			}
		}
	}
}

// discover records the kinds served and adds an informer, with the
// graph's handlers, for every resource that can be listed, watched and
// deleted (the preferred version of each group).
func (gc *GarbageCollector) discover() error {
	lists, err := gc.discovery.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return fmt.Errorf("controllers: garbage collector discovery: %w", err)
	}
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			gc.addResource(gv, r)
		}
	}
	return nil
}

// addResource records r and watches it if the collector should.
// gc.mu is held.
func (gc *GarbageCollector) addResource(gv schema.GroupVersion, r metav1.APIResource) {
	if strings.Contains(r.Name, "/") {
		return
	}
	gvr := gv.WithResource(r.Name)
	gc.mappings[gv.WithKind(r.Kind)] = resourceMapping{gvr: gvr, namespaced: r.Namespaced}
	verbs := map[string]bool{}
	for _, v := range r.Verbs {
		verbs[v] = true
	}
	if !verbs["list"] || !verbs["watch"] || !verbs["delete"] || ignoredResources[gvr.GroupResource()] {
		return
	}
	if _, ok := gc.watched[gvr]; ok {
		return
	}
	inf := gc.informerFor(gvr)
	if _, err := inf.AddEventHandler(gc.graph.handlers(gv.WithKind(r.Kind))); err != nil {
		return
	}
	gc.watched[gvr] = inf
}

// informerFor is the typed shared informer of gvr if the manager's
// factory has one, else a metadata informer of the collector's own.
func (gc *GarbageCollector) informerFor(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	if gc.typed != nil {
		if gi, err := gc.typed.ForResource(gvr); err == nil {
			return gi.Informer()
		}
	}
	return gc.metadata.ForResource(gvr).Informer()
}

// startInformers starts the informers added since the last start: the
// shared factory's too, as the manager started it before the collector
// asked for its informers (starting is idempotent).
func (gc *GarbageCollector) startInformers(ctx context.Context) {
	if gc.typed != nil {
		gc.typed.Start(ctx.Done())
	}
	gc.metadata.Start(ctx.Done())
}

// mapping returns where objects of apiVersion and kind are served.
func (gc *GarbageCollector) mapping(apiVersion, kind string) (resourceMapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return resourceMapping{}, err
	}
	gc.mu.Lock()
	defer gc.mu.Unlock()
	m, ok := gc.mappings[gv.WithKind(kind)]
	if !ok {
		return resourceMapping{}, fmt.Errorf("controllers: garbage collector: no resource serves %s %s", apiVersion, kind)
	}
	return m, nil
}

func (gc *GarbageCollector) syncedCheckers() []cache.DoneChecker {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	var out []cache.DoneChecker
	for _, inf := range gc.watched {
		out = append(out, inf.HasSyncedChecker())
	}
	return out
}

// runQueue processes queue's items with process until it shuts down; a
// failure is retried, rate-limited.
func (gc *GarbageCollector) runQueue(ctx context.Context, queue workqueue.TypedRateLimitingInterface[types.UID], process func(context.Context, types.UID) error) {
	for {
		uid, quit := queue.Get()
		if quit {
			return
		}
		if err := process(ctx, uid); err != nil && ctx.Err() == nil {
			queue.AddRateLimited(uid)
		} else {
			queue.Forget(uid)
		}
		queue.Done(uid)
	}
}

// newGarbageCollectorControllerDescriptor is the generic-garbage-collector's entry
// in newControllerDescriptors: Config.GCWorkers workers, its writes
// reported; its metadata informers use the manager's own credentials.
func newGarbageCollectorControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: GarbageCollectorName, workers: func(cfg *Config) int { return cfg.GCWorkers },
		build: func(cc *controllerContext) (runFunc, error) {
			rc := observeWrites(cc.restConfig(GarbageCollectorName))
			client, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return nil, err
			}
			dyn, err := dynamic.NewForConfig(rc)
			if err != nil {
				return nil, err
			}
			meta, err := metadata.NewForConfig(cc.own.config("metadata-informers"))
			if err != nil {
				return nil, err
			}
			gc := NewGarbageCollector(client.Discovery(), dyn, cc.factory, meta, max(cc.cfg.period(DefaultGCResyncPeriod), minGCResyncPeriod))
			if cc.cfg.Observer != nil {
				gc.report = cc.cfg.observe
			}
			return gc.Run, nil
		}}
}
