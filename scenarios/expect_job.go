package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JobExpectation: the Job's status has every figure given: Status the
// STATUS column of kubectl get jobs (Complete, Failed, Terminating,
// Suspended, FailureTarget, SuccessCriteriaMet or Running, in the
// printer's order), Completions its COMPLETIONS column ("1/1", "5/5",
// "0/1 of 3"), Succeeded, Failed, Active and Ready status's counts,
// CompletedIndexes status.completedIndexes of an Indexed Job ("0-4"),
// and ActiveAtMost: never more than that many of its pods were active at
// once (not finished, not being deleted) over its whole run, replayed
// from a watch of its pods since the Job's creation. Narration that quotes
// these figures states them here.
type JobExpectation struct {
	Job                              ObjectSpec
	Status, Completions              string
	CompletedIndexes                 *string
	Succeeded, Failed, Active, Ready *int64
	ActiveAtMost                     *int64
}

var _ prober = (*JobExpectation)(nil)

// jobExpectDoc is job as written.
type jobExpectDoc struct {
	Name             objectName  `yaml:"name" load:"required"`
	Namespace        *objectName `yaml:"namespace"`
	Status           *str        `yaml:"status"`
	Completions      *str        `yaml:"completions"`
	CompletedIndexes *str        `yaml:"completedIndexes"`
	Succeeded        *count      `yaml:"succeeded"`
	Failed           *count      `yaml:"failed"`
	Active           *count      `yaml:"active"`
	Ready            *count      `yaml:"ready"`
	ActiveAtMost     *count      `yaml:"activeAtMost"`
}

// jobStatuses are the values of kubectl's STATUS column of a Job.
var jobStatuses = []string{"Complete", "Failed", "Terminating", "Suspended", "FailureTarget", "SuccessCriteriaMet", "Running"}

// Kind returns "job".
func (e *JobExpectation) Kind() string { return "job" }

// String names the Job and the figures asked for.
func (e *JobExpectation) String() string {
	return "Job " + nsName(e.Job.Namespace, e.Job.Name) + " " + strings.Join(e.wanted(), ", ")
}

// wanted lists the figures asked for, as "name value".
func (e *JobExpectation) wanted() []string {
	var w []string
	add := func(name string, v *int64) {
		if v != nil {
			w = append(w, fmt.Sprintf("%s %d", name, *v))
		}
	}
	if e.Status != "" {
		w = append(w, "status "+e.Status)
	}
	if e.Completions != "" {
		w = append(w, "completions "+e.Completions)
	}
	if e.CompletedIndexes != nil {
		w = append(w, fmt.Sprintf("completedIndexes %q", *e.CompletedIndexes))
	}
	add("succeeded", e.Succeeded)
	add("failed", e.Failed)
	add("active", e.Active)
	add("ready", e.Ready)
	add("activeAtMost", e.ActiveAtMost)
	return w
}

// parseJobExpectation reads {name, namespace, status, completions,
// completedIndexes, succeeded, failed, active, ready, activeAtMost}; at
// least one figure.
func parseJobExpectation(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	var d jobExpectDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	e := &JobExpectation{Job: ObjectSpec{Kind: "Job", Name: string(d.Name), Namespace: DefaultNamespace},
		Completions: d.Completions.or(""), Succeeded: int64Of(d.Succeeded), Failed: int64Of(d.Failed),
		Active: int64Of(d.Active), Ready: int64Of(d.Ready), ActiveAtMost: int64Of(d.ActiveAtMost)}
	if d.Namespace != nil {
		e.Job.Namespace = string(*d.Namespace)
	}
	if d.CompletedIndexes != nil {
		s := string(*d.CompletedIndexes)
		e.CompletedIndexes = &s
	}
	var err error
	if d.Status != nil {
		if e.Status, err = d.Status.oneOf(valueOf(n, "status"), "", jobStatuses); err != nil {
			return nil, err
		}
	}
	if len(e.wanted()) == 0 {
		return nil, errAt(n, "give at least one of status, completions, completedIndexes, succeeded, failed, active, ready, activeAtMost")
	}
	return e, nil
}

// probe reads the Job, then (for activeAtMost) replays its pods.
func (e *JobExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	job, err := p.admin.BatchV1().Jobs(e.Job.Namespace).Get(ctx, e.Job.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	s := job.Status
	seen := fmt.Sprintf("status %s, completions %s, completedIndexes %q, succeeded %d, failed %d, active %d, ready %d",
		jobStatusColumn(job), jobCompletionsColumn(job), s.CompletedIndexes, s.Succeeded, s.Failed, s.Active, ptrOr(s.Ready))
	ok := (e.Status == "" || e.Status == jobStatusColumn(job)) &&
		(e.Completions == "" || e.Completions == jobCompletionsColumn(job)) &&
		(e.CompletedIndexes == nil || *e.CompletedIndexes == s.CompletedIndexes) &&
		same(e.Succeeded, s.Succeeded) && same(e.Failed, s.Failed) && same(e.Active, s.Active) && same(e.Ready, ptrOr(s.Ready))
	if !ok || e.ActiveAtMost == nil {
		return seen, ok, nil
	}
	most, err := p.jobMaxActive(ctx, job)
	if err != nil {
		return seen + "; its pods' history: " + err.Error(), false, nil
	}
	if most > *e.ActiveAtMost {
		return fmt.Sprintf("%s; at most %d of its pods active at once", seen, most), false, nil
	}
	return "", true, nil
}

// same says whether want (if given) is got.
func same(want *int64, got int32) bool { return want == nil || *want == int64(got) }

// ptrOr is *v, or 0 for nil.
func ptrOr(v *int32) int32 {
	if v == nil {
		return 0
	}
	return *v
}

// jobStatusColumn is the STATUS kubectl get jobs prints (the printer of
// pkg/printers/internalversion, in its order).
func jobStatusColumn(job *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobCompletionsColumn is the COMPLETIONS kubectl get jobs prints.
func jobCompletionsColumn(job *batchv1.Job) string {
	if job.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	}
	if par := ptrOr(job.Spec.Parallelism); par > 1 {
		return fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, par)
	}
	return fmt.Sprintf("%d/1", job.Status.Succeeded)
}
