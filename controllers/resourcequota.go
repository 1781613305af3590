package controllers

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/resourcequota"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	"k8s.io/kubernetes/pkg/quota/v1/install"
)

// ResourceQuotaControllerName is the resource quota controller's service
// account and user agent.
const ResourceQuotaControllerName = "resourcequota-controller"

// kube-controller-manager's periods of the resource quota controller:
// the full recalculation of every quota (--resource-quota-sync-period),
// the rediscovery of the resources to count, and its --min-resync-period
// (the replenishment informers resync at a random time between it and
// twice it). They are upstream's as written: usage follows the objects'
// informer events at once, the periods only catch up on what was missed.
const (
	resourceQuotaSyncPeriod      = 5 * time.Minute
	resourceQuotaDiscoveryPeriod = 30 * time.Second
	minResyncPeriod              = 12 * time.Hour
)

// newResourceQuotaControllerDescriptor is upstream's resource quota
// controller (pkg/controller/resourcequota): each ResourceQuota's
// status.hard (its spec) and status.used, counted from the objects its
// resources name (the pods, services, claims evaluators; object counts
// of the rest) and kept current as they come and go, watched through
// the shared informers or, for the kinds they lack, metadata informers of
// its own (kube-controller-manager's ObjectOrMetadataInformerFactory),
// for every namespaced resource discovery lists. 5 workers
// (--concurrent-resource-quota-syncs).
func newResourceQuotaControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: ResourceQuotaControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			meta, err := metadata.NewForConfig(cc.own.config("metadata-informers"))
			if err != nil {
				return nil, err
			}
			return cc.upstream(ResourceQuotaControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				evaluators, err := core.NewEvaluators(generic.ListerFuncForResourceFunc(f.ForResource), f, servedByKubesim)
				if err != nil {
					return nil, err
				}
				config := generic.NewConfiguration(evaluators, install.DefaultIgnoredResources())
				discover := client.Discovery().ServerPreferredNamespacedResources
				started := make(chan struct{})
				rq, err := resourcequota.NewController(ctx, &resourcequota.ControllerOptions{
					QuotaClient:               client.CoreV1(),
					ResourceQuotaInformer:     f.Core().V1().ResourceQuotas(),
					ResyncPeriod:              controller.StaticResyncPeriodFunc(resourceQuotaSyncPeriod),
					InformerFactory:           informerfactory.NewInformerFactory(f, metadatainformer.NewSharedInformerFactory(meta, 0)),
					ReplenishmentResyncPeriod: func() time.Duration { return time.Duration(float64(minResyncPeriod) * (rand.Float64() + 1)) },
					DiscoveryFunc:             discover,
					IgnoredResourcesFunc:      config.IgnoredResources,
					InformersStarted:          started,
					Registry:                  generic.NewRegistry(config.Evaluators()),
					UpdateFilter:              install.DefaultUpdateFilter(),
				})
				if err != nil {
					return nil, err
				}
				return func(ctx context.Context, workers int) {
					// The manager has started the shared informers by now.
					close(started)
					var wg sync.WaitGroup
					wg.Go(func() { rq.Sync(ctx, discover, resourceQuotaDiscoveryPeriod) })
					rq.Run(ctx, workers)
					wg.Wait()
				}, nil
			})
		}}
}

// servedByKubesim says whether kubesim serves gvr, for the quota
// evaluators upstream makes: all but resource.k8s.io's resourceclaims,
// whose evaluator (with the DRA extended resource gate, locked on)
// would watch deviceclasses, which kubesim does not serve.
func servedByKubesim(gvr schema.GroupVersionResource) bool {
	return gvr != resourcev1.SchemeGroupVersion.WithResource("resourceclaims")
}
