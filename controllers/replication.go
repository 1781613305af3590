package controllers

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/replication"
)

// ReplicationControllerName is the replication manager's service
// account and user agent.
const ReplicationControllerName = "replication-controller"

// newReplicationControllerDescriptor is upstream's replication manager
// (pkg/controller/replication): the ReplicaSet controller's code run on
// ReplicationControllers, as kube-controller-manager runs it. 5 workers
// (--concurrent-replicationcontroller-syncs).
func newReplicationControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: ReplicationControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(ReplicationControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				rm := replication.NewReplicationManager(ctx, f.Core().V1().Pods(), f.Core().V1().ReplicationControllers(), client, replicaset.BurstReplicas)
				return rm.Run, nil
			})
		}}
}
