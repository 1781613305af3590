package controllers

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/scale"
	"k8s.io/kubernetes/pkg/controller/podautoscaler"
	"k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
	resourceclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
	"k8s.io/metrics/pkg/client/custom_metrics"
	"k8s.io/metrics/pkg/client/external_metrics"
)

// HPAControllerName is the horizontal pod autoscaler's service account
// and user agent.
const HPAControllerName = "horizontal-pod-autoscaler"

// kube-controller-manager's defaults for the HPA controller
// (pkg/controller/podautoscaler/config/v1alpha1/defaults.go); kubesim
// divides the periods by the speed (hpaPeriods).
const (
	hpaSyncPeriod               = 15 * time.Second
	hpaDownscaleStabilization   = 5 * time.Minute
	hpaCPUInitializationPeriod  = 5 * time.Minute
	hpaInitialReadinessDelay    = 30 * time.Second
	hpaTolerance                = 0.1
	hpaMinSyncPeriodAtZeroSpeed = 100 * time.Millisecond
)

// newHPAControllerDescriptor is upstream's horizontal pod autoscaler
// (pkg/controller/podautoscaler): every sync period, for each
// HorizontalPodAutoscaler, the metrics of its target's pods from the
// resource metrics API (metrics.k8s.io, kubesim's metrics server), the
// replicas they call for (upstream's replica calculator, its tolerance
// and the scale-down stabilization window), written through the
// target's scale subresource, and the HPA's status and conditions. The
// periods are upstream's divided by the speed. 5 workers
// (--concurrent-horizontal-pod-autoscaler-syncs).
func newHPAControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: HPAControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			mapper, err := cc.restMapper()
			if err != nil {
				return nil, err
			}
			p := cc.cfg.hpaPeriods()
			return cc.upstream(HPAControllerName, func(ctx context.Context, client kubernetes.Interface, rc *rest.Config) (runFunc, error) {
				scales, err := scale.NewForConfig(rc, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(client.Discovery()))
				if err != nil {
					return nil, err
				}
				apis := custom_metrics.NewAvailableAPIsGetter(client.Discovery())
				mc, err := hpaMetricsClient(rc, mapper, apis)
				if err != nil {
					return nil, err
				}
				hc := podautoscaler.NewHorizontalController(ctx, client.CoreV1(), scales, client.AutoscalingV2(), mapper, mc,
					f.Autoscaling().V2().HorizontalPodAutoscalers(), f.Core().V1().Pods(),
					p.sync, p.downscale, hpaTolerance, p.cpuInit, p.readiness)
				return func(ctx context.Context, workers int) {
					var wg sync.WaitGroup
					wg.Go(func() { custom_metrics.PeriodicallyInvalidate(apis, p.sync, ctx.Done()) })
					hc.Run(ctx, workers)
					wg.Wait()
				}, nil
			})
		}}
}

// hpaPeriodSet are the HPA controller's periods under a Config.
type hpaPeriodSet struct{ sync, downscale, cpuInit, readiness time.Duration }

// hpaPeriods are upstream's HPA periods divided by the speed; the sync
// period is never under hpaMinSyncPeriodAtZeroSpeed (at speed 0 it would
// be 15 ms), so that an HPA does not read the metrics API in a busy loop.
func (c *Config) hpaPeriods() hpaPeriodSet {
	p := hpaPeriodSet{c.period(hpaSyncPeriod), c.period(hpaDownscaleStabilization),
		c.period(hpaCPUInitializationPeriod), c.period(hpaInitialReadinessDelay)}
	p.sync = max(p.sync, hpaMinSyncPeriodAtZeroSpeed)
	return p
}

// hpaMetricsClient is the HPA's metrics client as kube-controller-manager
// makes it: the resource metrics API (kubesim's metrics server), and the
// custom and external metrics APIs, which kubesim does not serve (an HPA
// on them reports FailedGetObjectMetric or FailedGetExternalMetric, as
// on a cluster without those adapters). apis is the custom metrics
// client's view of discovery, which the caller invalidates every sync
// period as upstream does.
func hpaMetricsClient(rc *rest.Config, mapper meta.RESTMapper, apis custom_metrics.AvailableAPIsGetter) (metrics.MetricsClient, error) {
	resources, err := resourceclient.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	external, err := external_metrics.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	return metrics.NewRESTMetricsClient(resources, custom_metrics.NewForConfig(rc, mapper, apis), external), nil
}
