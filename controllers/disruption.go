package controllers

import (
	"context"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/scale"
	"k8s.io/kubernetes/pkg/controller/disruption"
)

// DisruptionControllerName is the disruption controller's service
// account and user agent.
const DisruptionControllerName = "disruption-controller"

// newDisruptionControllerDescriptor is upstream's disruption controller
// (pkg/controller/disruption): each PodDisruptionBudget's status
// (currentHealthy, desiredHealthy, expectedPods from the pods'
// controllers' scale, disruptionsAllowed, the DisruptionAllowed
// condition), and the disruptedPods the eviction subresource noted
// dropped when their pods go or after two minutes. 1 worker
// (--concurrent-disruption-syncs).
func newDisruptionControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: DisruptionControllerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			mapper, err := cc.restMapper()
			if err != nil {
				return nil, err
			}
			return cc.upstream(DisruptionControllerName, func(ctx context.Context, client kubernetes.Interface, rc *rest.Config) (runFunc, error) {
				resolver := scale.NewDiscoveryScaleKindResolver(client.Discovery())
				scales, err := scale.NewForConfig(rc, mapper, dynamic.LegacyAPIPathResolverFunc, resolver)
				if err != nil {
					return nil, err
				}
				dc := disruption.NewDisruptionController(ctx, f.Core().V1().Pods(), f.Policy().V1().PodDisruptionBudgets(),
					f.Core().V1().ReplicationControllers(), f.Apps().V1().ReplicaSets(), f.Apps().V1().Deployments(),
					f.Apps().V1().StatefulSets(), client, mapper, scales, client.Discovery())
				return dc.Run, nil
			})
		}}
}
