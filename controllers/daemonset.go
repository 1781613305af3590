package controllers

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/controller/daemon"
)

// DaemonSetControllerName is the daemonset controller's service account
// and user agent (upstream's client name, daemon-set-controller).
const DaemonSetControllerName = "daemon-set-controller"

// newDaemonSetControllerDescriptor is upstream's daemonset controller
// (pkg/controller/daemon): a pod for each node the DaemonSet's pods may
// run on (node selector and affinity, taints against the tolerations
// the controller adds), bound by a required node affinity to the node's
// name that the scheduler honours, rolling updates within maxUnavailable
// and maxSurge, ControllerRevisions. Failed pods are made again after a
// back-off from 1 s to 15 min, as kube-controller-manager's. 2 workers
// (--concurrent-daemonset-syncs).
func newDaemonSetControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: DaemonSetControllerName, workers: fixedWorkers(2),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(DaemonSetControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				dsc, err := daemon.NewDaemonSetsController(ctx, f.Apps().V1().DaemonSets(), f.Apps().V1().ControllerRevisions(),
					f.Core().V1().Pods(), f.Core().V1().Nodes(), client, flowcontrol.NewBackOff(time.Second, 15*time.Minute))
				if err != nil {
					return nil, err
				}
				return dsc.Run, nil
			})
		}}
}
