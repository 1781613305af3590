package scenarios

import (
	"context"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// jobMaxActive replays the history of job's pods (those labelled with
// its controller-uid) and returns the most that were active at once: not
// Succeeded or Failed and not being deleted, as the job controller
// counts status.active. The history is a watch from the first
// resourceVersion this run saw of the Job (its create's, when a step
// created it), served by the API server's watch cache in the order of
// the writes; it is read until the event of the newest write among the
// pods there are now. A Job this run did not create has no start to
// replay from, and an error says so.
func (p *player) jobMaxActive(ctx context.Context, job *batchv1.Job) (int64, error) {
	from, err := p.resourceVersionOf(ctx, &ResourceVersionRef{Object: ObjectSpec{Kind: "Job", Name: job.Name, Namespace: job.Namespace}})
	if err != nil {
		return 0, err
	}
	sel := batchv1.ControllerUidLabel + "=" + string(job.UID)
	pods := p.admin.CoreV1().Pods(job.Namespace)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return 0, err
	}
	var until int64
	for _, pod := range list.Items {
		rv, _ := strconv.ParseInt(pod.ResourceVersion, 10, 64)
		until = max(until, rv)
	}
	if until == 0 {
		return 0, nil
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{LabelSelector: sel, ResourceVersion: from})
	if err != nil {
		return 0, fmt.Errorf("watch from resourceVersion %s: %w", from, err)
	}
	defer w.Stop()
	return replayActive(ctx, w, until)
}

// replayActive reads pod events from w until one of resourceVersion
// until or later, and returns the most pods active at once.
func replayActive(ctx context.Context, w watch.Interface, until int64) (int64, error) {
	active := map[types.UID]bool{}
	var most int64
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return 0, fmt.Errorf("the watch ended before resourceVersion %d", until)
			}
			if ev.Type == watch.Error {
				return 0, fmt.Errorf("watch: %v", ev.Object)
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			finished := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
			active[pod.UID] = ev.Type != watch.Deleted && !finished && pod.DeletionTimestamp == nil
			most = max(most, countTrue(active))
			if rv, _ := strconv.ParseInt(pod.ResourceVersion, 10, 64); rv >= until {
				return most, nil
			}
		}
	}
}

// countTrue counts the true values of m.
func countTrue[K comparable](m map[K]bool) int64 {
	var n int64
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}
