package controllers

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/cronjob"
)

// CronJobControllerName is the cronjob controller's service account and
// user agent.
const CronJobControllerName = "cronjob-controller"

// newCronJobControllerDescriptor is upstream's cronjob controller
// (pkg/controller/cronjob, ControllerV2): a Job from the jobTemplate at
// each time of the schedule (in timeZone, or the controller's local
// zone), concurrencyPolicy Allow, Forbid or Replace,
// startingDeadlineSeconds, suspend, and finished Jobs kept to the
// history limits. It reads the wall clock, as upstream's does: kubesim's
// --speed does not bring a schedule sooner. 5 workers
// (--concurrent-cron-job-syncs).
func newCronJobControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: CronJobControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(CronJobControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				c, err := cronjob.NewControllerV2(ctx, f.Batch().V1().Jobs(), f.Batch().V1().CronJobs(), client)
				if err != nil {
					return nil, err
				}
				return c.Run, nil
			})
		}}
}
