package registry_test

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

func newJob(name string) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "pi", Image: "busybox", Command: []string{"echo", "3.14"}}},
		}}},
	}
	registry.Jobs.Default(j, false)
	return j
}

// TestJobsCreate: upstream's job strategy: the generated selector and the
// template's job-name and controller-uid labels (legacy and prefixed) are
// the job's uid and name; generation 1, status cleared; the v1 defaults
// (labels copied from the template, as kube-apiserver's reads show them);
// upstream's validation message.
func TestJobsCreate(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	in := newJob("pi")
	in.Status.Active = 3
	out, err := r.Store(registry.Jobs).Create(ctx, "default", in, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := out.(*batchv1.Job)
	uid := string(j.UID)
	if uid == "" || j.Generation != 1 || j.Status.Active != 0 {
		t.Errorf("uid=%q generation=%d active=%d, want a uid, 1, 0", uid, j.Generation, j.Status.Active)
	}
	if got := j.Spec.Selector.MatchLabels; len(got) != 1 || got["batch.kubernetes.io/controller-uid"] != uid {
		t.Errorf("selector = %v, want batch.kubernetes.io/controller-uid=%s", got, uid)
	}
	want := map[string]string{"batch.kubernetes.io/controller-uid": uid, "controller-uid": uid, "batch.kubernetes.io/job-name": "pi", "job-name": "pi"}
	for k, v := range want {
		if j.Spec.Template.Labels[k] != v || j.Labels[k] != v {
			t.Errorf("label %s = %q on the template, %q on the job, want %q on both", k, j.Spec.Template.Labels[k], j.Labels[k], v)
		}
	}
	if j.Spec.ManualSelector == nil || *j.Spec.ManualSelector || ptr.Deref(j.Spec.BackoffLimit, 0) != 6 {
		t.Errorf("manualSelector=%v backoffLimit=%v, want the v1 defaults false and 6", j.Spec.ManualSelector, j.Spec.BackoffLimit)
	}
	bad := newJob("bad")
	bad.Spec.Template.Spec.RestartPolicy = ""
	registry.Jobs.Default(bad, false)
	_, err = r.Store(registry.Jobs).Create(ctx, "default", bad, nil, registry.Options{})
	wantStatus(t, err, 422, `Job.batch "bad" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`)
}

// TestJobsUpdate: the selector is immutable, a spec change bumps the
// generation, the main resource keeps the status; jobs/status keeps the
// spec and rejects what upstream's status options reject.
func TestJobsUpdate(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	st, status := r.Store(registry.Jobs), r.StatusStore(registry.Jobs)
	created, err := st.Create(ctx, "default", newJob("pi"), nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	next := created.DeepCopyObject().(*batchv1.Job)
	next.Spec.Parallelism = ptr.To[int32](2)
	next.Status.Active = 5
	out, _, err := st.Update(ctx, "default", "pi", replaceWith(next), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if j := out.(*batchv1.Job); j.Generation != 2 || j.Status.Active != 0 {
		t.Errorf("generation=%d active=%d after a spec change, want 2 and the old status", j.Generation, j.Status.Active)
	}
	sel := out.DeepCopyObject().(*batchv1.Job)
	sel.Spec.Selector.MatchLabels["x"] = "y"
	_, _, err = st.Update(ctx, "default", "pi", replaceWith(sel), nil, nil, registry.Options{})
	wantStatus(t, err, 422, "spec.selector: Invalid value")

	s := out.DeepCopyObject().(*batchv1.Job)
	s.Status.Active, s.Status.StartTime = 2, &metav1.Time{Time: s.CreationTimestamp.Time}
	s.Spec.Parallelism = ptr.To[int32](9)
	got, _, err := status.Update(ctx, "default", "pi", replaceWith(s), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if j := got.(*batchv1.Job); j.Status.Active != 2 || *j.Spec.Parallelism != 2 {
		t.Errorf("status update: active=%d parallelism=%d, want 2 and the old spec's 2", j.Status.Active, *j.Spec.Parallelism)
	}
	dec := got.DeepCopyObject().(*batchv1.Job)
	dec.Status.Failed = -1
	_, _, err = status.Update(ctx, "default", "pi", replaceWith(dec), nil, nil, registry.Options{})
	wantStatus(t, err, 422, "status.failed: Invalid value: -1: must be greater than or equal to 0")
}

// TestJobsFieldSelector: status.successful selects jobs; another key is
// refused with upstream's conversion message.
func TestJobsFieldSelector(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	if _, err := r.Store(registry.Jobs).Create(ctx, "default", newJob("pi"), nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	list := func(sel string) (*batchv1.JobList, error) {
		out, err := r.Store(registry.Jobs).List(ctx, "default", listOpts(t, sel))
		if err != nil {
			return nil, err
		}
		return out.(*batchv1.JobList), nil
	}
	if l, err := list("status.successful=0"); err != nil || len(l.Items) != 1 {
		t.Errorf("status.successful=0: %v, %v; want the job", l, err)
	}
	if l, err := list("status.successful=1"); err != nil || len(l.Items) != 0 {
		t.Errorf("status.successful=1: %v, %v; want none", l, err)
	}
	_, err := list("spec.x=1")
	wantStatus(t, err, 400, `field label "spec.x" not supported for Job`)
}

// TestJobsDeleteOrphans: a delete of a batch/v1 job that names no
// propagation policy orphans its pods (upstream's
// DefaultGarbageCollectionPolicy for batch/v1): the job keeps the orphan
// finalizer for the garbage collector; Background deletes it at once.
func TestJobsDeleteOrphans(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	st := r.Store(registry.Jobs)
	for _, name := range []string{"a", "b"} {
		if _, err := st.Create(ctx, "default", newJob(name), nil, registry.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	out, deleted, err := st.Delete(ctx, "default", "a", nil, nil)
	if err != nil || deleted {
		t.Fatalf("delete a: deleted=%v err=%v, want it kept for the garbage collector", deleted, err)
	}
	if f := out.(*batchv1.Job).Finalizers; len(f) != 1 || f[0] != metav1.FinalizerOrphanDependents {
		t.Errorf("finalizers = %v, want [orphan]", f)
	}
	bg := metav1.DeletePropagationBackground
	if _, deleted, err := st.Delete(ctx, "default", "b", nil, &metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil || !deleted {
		t.Errorf("delete b (Background): deleted=%v err=%v, want deleted", deleted, err)
	}
}

// TestCronJobs: upstream's cronjob strategy: generation, status kept by
// the main resource, the schedule validated with upstream's message.
func TestCronJobs(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Spec:       batchv1.CronJobSpec{Schedule: "*/1 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: newJob("x").Spec}},
	}
	cj.Spec.JobTemplate.Spec.Selector, cj.Spec.JobTemplate.Spec.ManualSelector = nil, nil
	cj.Spec.JobTemplate.Spec.Template.Labels = nil
	registry.CronJobs.Default(cj, false)
	out, err := r.Store(registry.CronJobs).Create(ctx, "default", cj, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := out.(*batchv1.CronJob)
	if c.Generation != 1 || c.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || ptr.Deref(c.Spec.SuccessfulJobsHistoryLimit, 0) != 3 {
		t.Errorf("generation=%d concurrencyPolicy=%q successfulJobsHistoryLimit=%v, want 1, Allow, 3", c.Generation, c.Spec.ConcurrencyPolicy, c.Spec.SuccessfulJobsHistoryLimit)
	}
	next := c.DeepCopy()
	next.Spec.Schedule = "nope"
	_, _, err = r.Store(registry.CronJobs).Update(ctx, "default", "x", replaceWith(next), nil, nil, registry.Options{})
	wantStatus(t, err, 422, `CronJob.batch "x" is invalid: spec.schedule: Invalid value: "nope": expected exactly 5 fields, found 1: [nope]`)
	s := c.DeepCopy()
	s.Status.Active = []corev1.ObjectReference{{Kind: "Job", Name: "x-1"}}
	s.Spec.Schedule = "@hourly"
	got, _, err := r.StatusStore(registry.CronJobs).Update(ctx, "default", "x", replaceWith(s), nil, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*batchv1.CronJob); len(g.Status.Active) != 1 || g.Spec.Schedule != "*/1 * * * *" {
		t.Errorf("status update: active=%v schedule=%q, want the new status and the old spec", g.Status.Active, g.Spec.Schedule)
	}
}
