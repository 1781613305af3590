package scheduler

import (
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
)

// The scheduler records its work in kube-scheduler's own metrics
// (k8s.io/kubernetes/pkg/scheduler/metrics, registered with
// component-base's legacyregistry), where upstream's scheduler records
// it:
//
//	scheduler_schedule_attempts_total and
//	scheduler_scheduling_attempt_duration_seconds  by result (scheduled,
//	    unschedulable, error) and profile, from the start of the attempt
//	    to the binding or the failure
//	scheduler_scheduling_algorithm_duration_seconds  filter and score
//	scheduler_pod_scheduling_attempts  the attempts a scheduled pod took
//	scheduler_pending_pods  the queue of the scheduler that leads, by
//	    queue (active, backoff, unschedulable, gated), set when read
//	    (UpdatePendingPodsMetric)
//
// Upstream's other scheduler_* families (plugin durations, preemption,
// queue events, ...) are registered but not kept by kubesim.

// registerMetrics registers upstream's scheduler metrics (once).
func registerMetrics() { schedmetrics.Register() }

// attemptStarted returns when an attempt starts, for its durations.
func attemptStarted() time.Time { return time.Now() }

// observeAlgorithm records the duration of filter and score.
func observeAlgorithm(start time.Time) {
	schedmetrics.SchedulingAlgorithmLatency.Observe(schedmetrics.SinceInSeconds(start))
}

// observeScheduled records a pod bound after attempts attempts.
func (s *Scheduler) observeScheduled(a *attempt, attempts int) {
	schedmetrics.PodScheduled(s.name, schedmetrics.SinceInSeconds(a.start))
	schedmetrics.PodSchedulingAttempts.Observe(float64(attempts))
}

// observeFailed records an attempt that placed nothing, by the reason
// of its PodScheduled condition.
func (s *Scheduler) observeFailed(a *attempt, reason string) {
	if reason == corev1.PodReasonUnschedulable {
		schedmetrics.PodUnschedulable(s.name, schedmetrics.SinceInSeconds(a.start))
		return
	}
	schedmetrics.PodScheduleError(s.name, schedmetrics.SinceInSeconds(a.start))
}

// leading is the scheduler whose scheduling loop runs (the one holding
// the Lease), whose queue scheduler_pending_pods reports.
var leading atomic.Pointer[Scheduler]

// UpdatePendingPodsMetric sets scheduler_pending_pods to the queue of
// the scheduler of this process that is scheduling (zeros when none
// is). Upstream's queue keeps the gauge as pods move; kubesim, which may
// run several schedulers in one process, sets it when it is read. Safe
// for concurrent use.
func UpdatePendingPodsMetric() {
	var active, backoff, unschedulable, gated int
	if s := leading.Load(); s != nil {
		active, backoff, unschedulable, gated = s.queue.lengths()
	}
	schedmetrics.ActivePods().Set(float64(active))
	schedmetrics.BackoffPods().Set(float64(backoff))
	schedmetrics.UnschedulablePods().Set(float64(unschedulable))
	schedmetrics.GatedPods().Set(float64(gated))
}

// lengths are the pods in each part of the queue.
func (q *schedulingQueue) lengths() (active, backoff, unschedulable, gated int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active.Len(), q.backoff.Len(), len(q.unschedulable), len(q.gated)
}
