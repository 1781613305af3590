package registry

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/kubernetes/pkg/apis/batch/install" // legacyscheme: batch's versions, conversions and declarative validation
	upbatchv1 "k8s.io/kubernetes/pkg/apis/batch/v1"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Jobs is batch/v1 jobs, with upstream's strategies (pkg/registry/batch/
// job): a job without spec.manualSelector gets the generated selector
// (controller-uid) and its template the job-name and controller-uid
// labels; its status changes only through jobs/status, validated with
// upstream's status validation options; a change of spec bumps
// metadata.generation. A delete without a propagation policy orphans the
// job's pods, batch/v1's default.
var Jobs = &Resource{
	Kind:             batchv1.SchemeGroupVersion.WithKind("Job"),
	Plural:           "jobs",
	Singular:         "job",
	Categories:       []string{"all"},
	Namespaced:       true,
	NewFunc:          func() runtime.Object { return &batchv1.Job{} },
	NewListFunc:      func() runtime.Object { return &batchv1.JobList{} },
	Table:            printers.Jobs,
	Default:          upstreamDefaults(upbatchv1.SetObjectDefaults_Job, upbatchv1.Convert_v1_Job_To_batch_Job, upbatchv1.Convert_batch_Job_To_v1_Job),
	Strategy:         defaultAfterPrepare(upstreamStrategy(job.Strategy, "", upbatchv1.Convert_v1_Job_To_batch_Job, upbatchv1.Convert_batch_Job_To_v1_Job), upbatchv1.SetObjectDefaults_Job),
	Status:           &JobStatusStrategy,
	Fields:           jobFields,
	FieldLabels:      []string{"metadata.name", "metadata.namespace", "status.successful"},
	FieldLabelFormat: "field label %q not supported for Job",
	OrphanByDefault:  true,
}

// JobStatusStrategy is the strategy of jobs/status.
var JobStatusStrategy = upstreamStrategy(job.StatusStrategy, "status", upbatchv1.Convert_v1_Job_To_batch_Job, upbatchv1.Convert_batch_Job_To_v1_Job)

// defaultAfterPrepare runs the v1 defaulter set again after s's
// PrepareForCreate and PrepareForUpdate. kube-apiserver defaults every
// object it reads from etcd (its storage decoder defaults as it decodes),
// so what the strategy left for the defaults to fill in shows on every
// read: a job's metadata.labels, copied from the template labels the
// strategy generated. kubesim stores the object as it is read instead.
func defaultAfterPrepare[V any](s Strategy, set func(*V)) Strategy {
	create, update := s.PrepareForCreate, s.PrepareForUpdate
	s.PrepareForCreate = func(obj runtime.Object) {
		create(obj)
		set(any(obj).(*V))
	}
	s.PrepareForUpdate = func(obj, old runtime.Object) {
		update(obj, old)
		set(any(obj).(*V))
	}
	return s
}

// jobFields are the fields jobs may be selected by: metadata.name and
// namespace, status.successful (upstream's JobToSelectableFields).
func jobFields(obj runtime.Object) fields.Set {
	j := obj.(*batchv1.Job)
	fs := defaultFields(j)
	fs["status.successful"] = strconv.Itoa(int(j.Status.Succeeded))
	return fs
}

// CronJobs is batch/v1 cronjobs, with upstream's strategies (pkg/registry/
// batch/cronjob): status only through cronjobs/status (not validated, as
// upstream), a change of spec bumps metadata.generation.
var CronJobs = &Resource{
	Kind:        batchv1.SchemeGroupVersion.WithKind("CronJob"),
	Plural:      "cronjobs",
	Singular:    "cronjob",
	ShortNames:  []string{"cj"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &batchv1.CronJob{} },
	NewListFunc: func() runtime.Object { return &batchv1.CronJobList{} },
	Table:       printers.CronJobs,
	Default:     upstreamDefaults(upbatchv1.SetObjectDefaults_CronJob, upbatchv1.Convert_v1_CronJob_To_batch_CronJob, upbatchv1.Convert_batch_CronJob_To_v1_CronJob),
	Strategy:    upstreamStrategy(cronjob.Strategy, "", upbatchv1.Convert_v1_CronJob_To_batch_CronJob, upbatchv1.Convert_batch_CronJob_To_v1_CronJob),
	Status:      &CronJobStatusStrategy,
}

// CronJobStatusStrategy is the strategy of cronjobs/status.
var CronJobStatusStrategy = upstreamStrategy(cronjob.StatusStrategy, "status", upbatchv1.Convert_v1_CronJob_To_batch_CronJob, upbatchv1.Convert_batch_CronJob_To_v1_CronJob)
