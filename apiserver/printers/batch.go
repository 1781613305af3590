package printers

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// jobColumns are the columns of `kubectl get jobs` (upstream's
// jobColumnDefinitions); the priority-1 ones appear with -o wide.
var jobColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Status", Type: "string", Description: "Status of the job."},
	{Name: "Completions", Type: "string", Description: batchv1.JobStatus{}.SwaggerDoc()["succeeded"]},
	{Name: "Duration", Type: "string", Description: "Time required to complete the job."},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
}

// job prints NAME STATUS COMPLETIONS DURATION AGE, then CONTAINERS
// IMAGES SELECTOR, as upstream's printJob.
func (p printer) job(j *batchv1.Job) metav1.TableRow {
	var completions string
	switch {
	case j.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	case j.Spec.Parallelism != nil && *j.Spec.Parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *j.Spec.Parallelism)
	default:
		completions = fmt.Sprintf("%d/1", j.Status.Succeeded)
	}
	var took string
	switch {
	case j.Status.StartTime == nil:
	case j.Status.CompletionTime == nil:
		took = duration.HumanDuration(p.now.Sub(j.Status.StartTime.Time))
	default:
		took = duration.HumanDuration(j.Status.CompletionTime.Sub(j.Status.StartTime.Time))
	}
	names, images := containerCells(j.Spec.Template.Spec.Containers)
	return metav1.TableRow{
		Cells: []any{j.Name, jobStatus(j), completions, took, p.since(j.CreationTimestamp.Time),
			names, images, metav1.FormatLabelSelector(j.Spec.Selector)},
		Object: runtime.RawExtension{Object: j},
	}
}

// jobStatus is the STATUS cell of a job: its first true condition of
// Complete, Failed, (deleted: Terminating), Suspended, FailureTarget,
// SuccessCriteriaMet, in that order; Running if none.
func jobStatus(j *batchv1.Job) string {
	switch {
	case hasJobCondition(j, batchv1.JobComplete):
		return "Complete"
	case hasJobCondition(j, batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case hasJobCondition(j, batchv1.JobSuspended):
		return "Suspended"
	case hasJobCondition(j, batchv1.JobFailureTarget):
		return "FailureTarget"
	case hasJobCondition(j, batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// hasJobCondition reports whether the first condition of type t is true.
func hasJobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// cronJobColumns are the columns of `kubectl get cronjobs` (upstream's
// cronJobColumnDefinitions).
var cronJobColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Schedule", Type: "string", Description: batchv1.CronJobSpec{}.SwaggerDoc()["schedule"]},
	{Name: "Timezone", Type: "string", Description: batchv1.CronJobSpec{}.SwaggerDoc()["timeZone"]},
	{Name: "Suspend", Type: "boolean", Description: batchv1.CronJobSpec{}.SwaggerDoc()["suspend"]},
	{Name: "Active", Type: "integer", Description: batchv1.CronJobStatus{}.SwaggerDoc()["active"]},
	{Name: "Last Schedule", Type: "string", Description: batchv1.CronJobStatus{}.SwaggerDoc()["lastScheduleTime"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
	{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
}

// cronJob prints NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE,
// then CONTAINERS IMAGES SELECTOR, as upstream's printCronJob.
func (p printer) cronJob(c *batchv1.CronJob) metav1.TableRow {
	last := "<none>"
	if c.Status.LastScheduleTime != nil {
		last = p.since(c.Status.LastScheduleTime.Time)
	}
	zone := "<none>"
	if c.Spec.TimeZone != nil {
		zone = *c.Spec.TimeZone
	}
	suspend := "<unset>"
	if c.Spec.Suspend != nil {
		suspend = boolCell(*c.Spec.Suspend)
	}
	tmpl := c.Spec.JobTemplate.Spec
	names, images := containerCells(tmpl.Template.Spec.Containers)
	return metav1.TableRow{
		Cells: []any{c.Name, c.Spec.Schedule, zone, suspend, int64(len(c.Status.Active)), last, p.since(c.CreationTimestamp.Time),
			names, images, metav1.FormatLabelSelector(tmpl.Selector)},
		Object: runtime.RawExtension{Object: c},
	}
}

// boolCell is upstream's printBool: "True" or "False".
func boolCell(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// Jobs prints jobs.
var Jobs = tableHandler(jobColumns, printer.job)

// CronJobs prints cron jobs.
var CronJobs = tableHandler(cronJobColumns, printer.cronJob)
