package controllers

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/ttlafterfinished"
)

// TTLAfterFinishedControllerName is the TTL-after-finished controller's
// service account and user agent.
const TTLAfterFinishedControllerName = "ttl-after-finished-controller"

// newTTLAfterFinishedControllerDescriptor is upstream's
// ttlafterfinished controller: a finished Job with
// ttlSecondsAfterFinished is deleted (propagationPolicy Foreground) that
// long after it finished, on the wall clock. 5 workers
// (--concurrent-ttl-after-finished-syncs).
func newTTLAfterFinishedControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: TTLAfterFinishedControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			return cc.upstream(TTLAfterFinishedControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				return ttlafterfinished.New(ctx, cc.factory.Batch().V1().Jobs(), client).Run, nil
			})
		}}
}
