package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/cluster"
)

// The sizes of BenchmarkWorkloadsReady.
const (
	workloadsNodes          = 100
	workloadsDeployReplicas = 1000
	workloadsStsReplicas    = 100
	workloadsJobCompletions = 1000
	workloadsJobParallelism = 100
)

// workloadsReadyTimeout bounds each workload of the benchmark; past it
// the benchmark fails with how far the workload got.
const workloadsReadyTimeout = 10 * time.Minute

// BenchmarkWorkloadsReady puts the StatefulSet and Job controllers beside
// the Deployment's: on one cluster of 100 nodes (speed 0, fsync off, no
// metrics server, as BenchmarkDeploymentReady), each b.N times, one after
// another, from the create through the API:
//
//   - a Deployment of 1,000 replicas until an informer has seen every pod
//     Ready: the baseline, measured as BenchmarkDeploymentReady does;
//   - a StatefulSet of 100 (podManagementPolicy OrderedReady, the
//     default; no volumeClaimTemplates) until an informer has seen all
//     100 pods Ready. It is sequential by design: OrderedReady makes one
//     pod at a time, <set>-N only once <set>-(N-1) is Running and Ready,
//     so its time is ~100 sequential pod startups (controller, scheduler,
//     kubelet, status, back to the controller's informer), not a fan-out;
//   - a Job of 1,000 completions whose pods run `true` (restartPolicy
//     Never; kubesim's kubelet plays the command and the container exits
//     0 at once, the pod Succeeded) until its Complete condition.
//     Parallelism is 100: the default, 1, would make 1,000 sequential
//     pods; 1,000 would be the Deployment's fan-out once more. 100, one
//     running pod per node, makes the Job a turnover of finishing pods:
//     each success counted by the job controller (its tracking finalizer
//     removed, status.uncountedTerminatedPods) and replaced, ten rounds
//     of 100. Upstream's job controller syncs a Job at most once per
//     second (SyncJobBatchPeriod), which this figure includes.
//
// Each workload runs on a cluster empty of the others: it is deleted (in
// the background, and waited for until its pods are gone) outside the
// timer. It reports, per b.N:
//
//	ns/op          the three times added
//	deploy-s       the Deployment's create to its last pod Ready
//	sts-s          the StatefulSet's create to its last pod Ready
//	job-s          the Job's create to its Complete condition
//	sts/deploy     sts-s over deploy-s (same run, same cluster)
//	job/deploy     job-s over deploy-s
//	deploy-pods/s  1,000 over deploy-s
//	sts-pods/s     100 over sts-s: ~1 over one pod's startup
//	job-pods/s     1,000 completions over job-s
//
// Like every benchmark it runs only with -bench; run it alone, once:
//
//	go test ./cluster -run '^$' -bench WorkloadsReady -benchtime 1x -timeout 30m
func BenchmarkWorkloadsReady(b *testing.B) {
	_, admin, _ := startBenchCluster(b, workloadsNodes, func(cfg *cluster.Config) { cfg.MetricsServer = false })
	var deploy, sts, job time.Duration
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		name := fmt.Sprintf("wl-deploy-%d", i)
		deploy += timed(b, func() time.Duration { return rolloutToReady(b, admin, name, workloadsDeployReplicas).ready })
		deleteDeploymentAndWait(b, admin, name)

		name = fmt.Sprintf("wl-sts-%d", i)
		sts += timed(b, func() time.Duration { return statefulSetToReady(b, admin, name) })
		deleteAndWaitPods(b, admin, name, func(ctx context.Context, o metav1.DeleteOptions) error {
			return admin.AppsV1().StatefulSets("default").Delete(ctx, name, o)
		})

		name = fmt.Sprintf("wl-job-%d", i)
		job += timed(b, func() time.Duration { return jobToComplete(b, admin, name) })
		deleteAndWaitPods(b, admin, name, func(ctx context.Context, o metav1.DeleteOptions) error {
			return admin.BatchV1().Jobs("default").Delete(ctx, name, o)
		})
	}
	n := float64(b.N)
	b.ReportMetric(float64((deploy+sts+job).Nanoseconds())/n, "ns/op")
	b.ReportMetric(deploy.Seconds()/n, "deploy-s")
	b.ReportMetric(sts.Seconds()/n, "sts-s")
	b.ReportMetric(job.Seconds()/n, "job-s")
	b.ReportMetric(sts.Seconds()/deploy.Seconds(), "sts/deploy")
	b.ReportMetric(job.Seconds()/deploy.Seconds(), "job/deploy")
	b.ReportMetric(n*workloadsDeployReplicas/deploy.Seconds(), "deploy-pods/s")
	b.ReportMetric(n*workloadsStsReplicas/sts.Seconds(), "sts-pods/s")
	b.ReportMetric(n*workloadsJobCompletions/job.Seconds(), "job-pods/s")
}

// timed runs measure with the benchmark's timer running and returns what
// it returns; the timer is stopped again after it.
func timed(b *testing.B, measure func() time.Duration) time.Duration {
	b.StartTimer()
	defer b.StopTimer()
	return measure()
}

// statefulSetToReady creates the StatefulSet name of workloadsStsReplicas
// pods and returns the time from its create until an informer (synced
// before the create) has seen every one of its pods Ready.
func statefulSetToReady(b *testing.B, admin kubernetes.Interface, name string) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), workloadsReadyTimeout)
	defer cancel()
	var mu sync.Mutex
	var start time.Time
	var last time.Duration
	created, ready := map[string]bool{}, map[string]bool{}
	allReady := make(chan struct{})
	stop := informPods(b, admin, "app="+name, func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		created[p.Name] = true
		if podIsReady(p) && !ready[p.Name] {
			ready[p.Name] = true
			last = time.Since(start)
			if len(ready) == workloadsStsReplicas {
				close(allReady)
			}
		}
	})
	defer stop()
	mu.Lock()
	start = time.Now()
	mu.Unlock()
	if _, err := admin.AppsV1().StatefulSets("default").Create(ctx, benchStatefulSet(name), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-allReady:
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("after %v: %d pods of %s created, %d Ready of %d", time.Since(start), len(created), name, len(ready), workloadsStsReplicas)
	}
	mu.Lock()
	defer mu.Unlock()
	return last
}

// jobToComplete creates the Job name and returns the time from its
// create until a watch of it (relisting when the watch is dropped) sees
// its Complete condition. A Failed condition fails the benchmark.
func jobToComplete(b *testing.B, admin kubernetes.Interface, name string) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), workloadsReadyTimeout)
	defer cancel()
	start := time.Now()
	if _, err := admin.BatchV1().Jobs("default").Create(ctx, benchJob(name), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	lw := cache.NewFilteredListWatchFromClient(admin.BatchV1().RESTClient(), "jobs", "default",
		func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + name })
	var took time.Duration
	var failed *batchv1.Job
	_, err := watchtools.UntilWithSync(ctx, lw, &batchv1.Job{}, nil, func(ev watch.Event) (bool, error) {
		j, ok := ev.Object.(*batchv1.Job)
		if !ok {
			return false, nil
		}
		if jobCondition(j, batchv1.JobFailed) {
			failed = j
			return true, nil
		}
		if jobCondition(j, batchv1.JobComplete) {
			took = time.Since(start)
			return true, nil
		}
		return false, nil
	})
	if failed != nil {
		b.Fatalf("job %s failed: %+v", name, failed.Status)
	}
	if err != nil {
		j, gerr := admin.BatchV1().Jobs("default").Get(context.Background(), name, metav1.GetOptions{})
		if gerr != nil {
			b.Fatalf("after %v: job %s not Complete: %v (and get: %v)", time.Since(start), name, err, gerr)
		}
		b.Fatalf("after %v: job %s not Complete: %v; succeeded %d, active %d, failed %d of %d",
			time.Since(start), name, err, j.Status.Succeeded, j.Status.Active, j.Status.Failed, workloadsJobCompletions)
	}
	return took
}

// jobCondition says whether the Job has the condition t with status True.
func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// deleteAndWaitPods deletes a workload with del, in the background
// (its pods deleted by the garbage collector; batch/v1 Jobs would orphan
// them by default), and waits until no pod labelled app=name is left.
func deleteAndWaitPods(b *testing.B, admin kubernetes.Interface, name string, del func(context.Context, metav1.DeleteOptions) error) {
	ctx := context.Background()
	if err := del(ctx, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		b.Fatal(err)
	}
	benchWait(b, workloadsReadyTimeout, "the pods of "+name+" gone", func(ctx context.Context) bool {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		return err == nil && len(list.Items) == 0
	})
}

// benchStatefulSet is a StatefulSet of workloadsStsReplicas nginx pods
// labelled app=name, with the API's defaults (OrderedReady,
// RollingUpdate) and no volumeClaimTemplates.
func benchStatefulSet(name string) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(int32(workloadsStsReplicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
			},
		},
	}
}

// benchJob is a Job of workloadsJobCompletions completions,
// workloadsJobParallelism at a time, whose pods (labelled app=name beside
// the labels the API adds) run `true` and never restart.
func benchJob(name string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(int32(workloadsJobCompletions)),
			Parallelism: ptr.To(int32(workloadsJobParallelism)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "work", Image: "busybox:1.36", Command: []string{"true"}}},
				},
			},
		},
	}
}
