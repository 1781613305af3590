package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// CreateJobAction creates a Job as kubectl create job does
// (k8s.io/kubectl's CreateJobOptions): with Image, a Job of one
// container named after the Job, running Command, restartPolicy Never;
// with From (a CronJob's name), a Job made of the CronJob's jobTemplate:
// its labels, its annotations plus cronjob.kubernetes.io/instantiate:
// manual, its spec, and an ownerReference to the CronJob with controller
// true and no blockOwnerDeletion. The create is sent with field manager
// kubectl-create and strict field validation, as kubectl sends it.
type CreateJobAction struct {
	Job     ObjectSpec
	Image   string
	Command []string
	From    string // the CronJob's name; "" with Image
}

var _ actionRunner = (*CreateJobAction)(nil)

// createJobDoc is createJob as written.
type createJobDoc struct {
	Name      objectName  `yaml:"name" load:"required"`
	Namespace *objectName `yaml:"namespace"`
	Image     *str        `yaml:"image"`
	Command   []str       `yaml:"command"`
	From      *str        `yaml:"from"`
}

// instantiateAnnotation marks a Job made from a CronJob by hand.
const instantiateAnnotation = "cronjob.kubernetes.io/instantiate"

func init() {
	registerTranscriptZh(map[string]string{
		"> POST %s, fieldManager kubectl-create": "> POST %s，fieldManager 为 kubectl-create",
	})
}

// Kind returns "createJob".
func (a *CreateJobAction) Kind() string { return "createJob" }

// String is the kubectl command it does.
func (a *CreateJobAction) String() string {
	s := "kubectl create job " + a.Job.Name
	if a.Job.Namespace != DefaultNamespace {
		s += " -n " + a.Job.Namespace
	}
	if a.From != "" {
		return s + " --from=cronjob/" + a.From
	}
	s += " --image=" + a.Image
	if len(a.Command) > 0 {
		s += " -- " + strings.Join(a.Command, " ")
	}
	return s
}

// parseCreateJob reads {name, namespace, image, command, from}: either
// image (command optional) or from (cronjob/NAME), as kubectl requires.
func parseCreateJob(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d createJobDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &CreateJobAction{Job: ObjectSpec{Kind: "Job", Name: string(d.Name), Namespace: DefaultNamespace}}
	if d.Namespace != nil {
		a.Job.Namespace = string(*d.Namespace)
	}
	switch {
	case d.Image != nil && d.From != nil:
		return nil, errAt(valueOf(n, "from"), "either --image or --from must be specified, not both")
	case d.From != nil:
		name, ok := strings.CutPrefix(string(*d.From), "cronjob/")
		if !ok || name == "" {
			return nil, errAt(valueOf(n, "from"), "from must be cronjob/NAME, got %q", string(*d.From))
		}
		if len(d.Command) > 0 {
			return nil, errAt(valueOf(n, "command"), "cannot specify --from and command")
		}
		a.From = name
	case d.Image != nil:
		a.Image = string(*d.Image)
		for _, c := range d.Command {
			a.Command = append(a.Command, string(c))
		}
	default:
		return nil, errAt(n, "either --image or --from must be specified (give image or from)")
	}
	return a, nil
}

// run builds the Job as kubectl does and creates it as user.
func (a *CreateJobAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	job := a.imageJob()
	if a.From != "" {
		var res StepResult
		var err error
		if job, res, err = a.fromCronJob(ctx, p, user); err != nil {
			return res, err
		}
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(job)
	if err != nil {
		return StepResult{}, err
	}
	ri, err := p.resource(a.Job, user)
	if err != nil {
		return StepResult{}, err
	}
	u, err := ri.Create(ctx, &unstructured.Unstructured{Object: obj},
		metav1.CreateOptions{FieldManager: "kubectl-create", FieldValidation: metav1.FieldValidationStrict})
	if err != nil {
		err = fmt.Errorf("failed to create job: %w", err)
		return resultOf(err, http.StatusCreated), err
	}
	p.remember(u)
	res := StepResult{Status: http.StatusCreated}
	addTranscript(&res, "> POST %s, fieldManager kubectl-create", "jobs")
	addTranscript(&res, "%s", "job.batch/"+a.Job.Name+" created")
	return res, nil
}

// imageJob is kubectl's createJob: one container named after the Job.
func (a *CreateJobAction) imageJob() *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: a.Job.Name, Namespace: a.Job.Namespace},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers:    []corev1.Container{{Name: a.Job.Name, Image: a.Image, Command: a.Command}},
			RestartPolicy: corev1.RestartPolicyNever,
		}}},
	}
}

// fromCronJob reads the CronJob and makes kubectl's
// createJobFromCronJob of it.
func (a *CreateJobAction) fromCronJob(ctx context.Context, p *player, user string) (*batchv1.Job, StepResult, error) {
	cj := ObjectSpec{Kind: "CronJob", Name: a.From, Namespace: a.Job.Namespace}
	ri, err := p.resource(cj, user)
	if err != nil {
		return nil, StepResult{}, err
	}
	u, err := ri.Get(ctx, a.From, metav1.GetOptions{})
	if err != nil {
		return nil, resultOf(err, http.StatusOK), err
	}
	cron := &batchv1.CronJob{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cron); err != nil {
		return nil, StepResult{}, fmt.Errorf("cronjob %s: %w", a.From, err)
	}
	annotations := map[string]string{instantiateAnnotation: "manual"}
	for k, v := range cron.Spec.JobTemplate.Annotations {
		annotations[k] = v
	}
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: a.Job.Name, Namespace: a.Job.Namespace,
			Annotations: annotations, Labels: cron.Spec.JobTemplate.Labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "CronJob",
				Name: cron.Name, UID: cron.UID, Controller: ptr.To(true),
			}},
		},
		Spec: cron.Spec.JobTemplate.Spec,
	}, StepResult{}, nil
}
