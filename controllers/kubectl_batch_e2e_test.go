package controllers_test

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlJob: `kubectl create job pi -- echo 3.14` completes (the
// kubelet's command model runs echo) and `kubectl logs job/pi` prints
// its output. Skipped when kubectl is not on PATH.
func TestKubectlJob(t *testing.T) {
	c, _ := startNodes(t, 1)
	k := newKubectl(t, c)
	k.mustPrint(t, "job.batch/pi created\n", "create", "job", "pi", "--image=busybox", "--", "echo", "3.14")
	k.mustPrint(t, "job.batch/pi condition met\n", "wait", "--for=condition=complete", "job/pi", "--timeout="+waitTimeout.String())
	k.mustPrint(t, "3.14\n", "logs", "job/pi")
	rows := table(k.must(t, "get", "job", "pi"))
	if len(rows) != 1 || len(rows[0]) != 2 || rows[0][1][1] != "Complete" || rows[0][1][2] != "1/1" {
		t.Errorf("kubectl get job pi: %v, want Complete 1/1", rows)
	}
}

// TestKubectlCronJob: a CronJob made with kubectl makes a Job at the next
// minute of the wall clock (kubesim runs upstream's cronjob controller,
// which --speed does not hurry), and `kubectl create job --from=cronjob`
// makes one at once, owned by the CronJob and marked as made by hand.
// It waits up to a minute of real time. Skipped when kubectl is not on
// PATH.
func TestKubectlCronJob(t *testing.T) {
	t.Parallel()
	c, admin := startNodes(t, 1)
	k := newKubectl(t, c)
	k.mustPrint(t, "cronjob.batch/tick created\n", "create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *", "--", "echo", "tick")
	k.mustPrint(t, "job.batch/by-hand created\n", "create", "job", "by-hand", "--from=cronjob/tick")
	k.mustPrint(t, "job.batch/by-hand condition met\n", "wait", "--for=condition=complete", "job/by-hand", "--timeout="+waitTimeout.String())
	j, err := admin.BatchV1().Jobs("default").Get(context.Background(), "by-hand", metav1.GetOptions{})
	if err != nil || j.Annotations["cronjob.kubernetes.io/instantiate"] != "manual" || metav1.GetControllerOf(j) == nil || metav1.GetControllerOf(j).Name != "tick" {
		t.Fatalf("job by-hand: %v; want it owned by tick and annotated instantiate=manual", err)
	}
	waitFor(t, "a Job the CronJob made on schedule to complete", func(ctx context.Context) (bool, error) {
		list, err := admin.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, j := range list.Items {
			if owner := metav1.GetControllerOf(&j); owner != nil && owner.Name == "tick" && j.Name != "by-hand" && jobComplete(&j) {
				return true, nil
			}
		}
		return false, nil
	})
	cj, err := admin.BatchV1().CronJobs("default").Get(context.Background(), "tick", metav1.GetOptions{})
	if err != nil || cj.Status.LastScheduleTime == nil {
		t.Errorf("cronjob tick: %v, lastScheduleTime unset", err)
	}
}

func jobComplete(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == "True" {
			return true
		}
	}
	return false
}
