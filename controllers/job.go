package controllers

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/job"
)

// JobControllerName is the job controller's service account and user
// agent.
const JobControllerName = "job-controller"

// newJobControllerDescriptor is upstream's job controller
// (pkg/controller/job): pods up to parallelism until completions
// succeeded (NonIndexed, or Indexed with a completion index each),
// failed pods counted against backoffLimit (per index too) and the pod
// failure policy, the back-off of new pods after failures (10 s doubling
// to 10 min, upstream's, not scaled by the speed), activeDeadlineSeconds,
// the tracking finalizer batch.kubernetes.io/job-tracking, and the
// Complete, Failed, SuccessCriteriaMet and FailureTarget conditions.
// 5 workers (--concurrent-job-syncs). The Workload and PodGroup informers
// of the alpha WorkloadWithJob gate are not given, as upstream gives
// none with the gate off.
func newJobControllerDescriptor() controllerDescriptor {
	return controllerDescriptor{name: JobControllerName, workers: fixedWorkers(5),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(JobControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				jc, err := job.NewController(ctx, client, f.Core().V1().Pods(), f.Batch().V1().Jobs(), nil, nil)
				if err != nil {
					return nil, err
				}
				return jc.Run, nil
			})
		}}
}
