package controllers

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/statefulset"
)

// StatefulSetControllerName is the statefulset controller's service
// account and user agent.
const StatefulSetControllerName = "statefulset-controller"

// newStatefulSetControllerDescriptor is upstream's statefulset
// controller (pkg/controller/statefulset): pods named <set>-0..N-1 made
// and deleted in order (OrderedReady) or at once (Parallel), their
// PersistentVolumeClaims from volumeClaimTemplates, ControllerRevisions
// for the revision history, RollingUpdate with partition and OnDelete.
// 5 workers (--concurrent-statefulset-syncs).
func newStatefulSetControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: StatefulSetControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(StatefulSetControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				ssc := statefulset.NewStatefulSetController(ctx, f.Core().V1().Pods(), f.Apps().V1().StatefulSets(),
					f.Core().V1().PersistentVolumeClaims(), f.Apps().V1().ControllerRevisions(), client)
				return ssc.Run, nil
			})
		}}
}
