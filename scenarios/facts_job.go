package scenarios

import (
	"context"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// jobFigures are the figures of a Job a question may ask about: its
// status's counts of pods that succeeded, failed, and are active, and
// the most of its pods active at once over its run (see JobExpectation).
var jobFigures = []string{"succeeded", "failed", "active", "maxActive"}

// jobFact is one figure of a Job, read after the step.
type jobFact struct {
	Job, Namespace, Figure string
}

// validCount accepts a non-negative integer.
func validCount(v string) bool {
	n, err := strconv.ParseUint(v, 10, 31)
	return err == nil && strconv.FormatUint(n, 10) == v
}

// parseJobFact reads {job, namespace, figure}.
func parseJobFact(d *questionDoc, n *yaml.Node) (fact, error) {
	if d.Job == nil {
		return nil, errAt(n, "missing field \"job\"")
	}
	f := jobFact{Job: string(*d.Job), Namespace: DefaultNamespace}
	if d.Namespace != nil {
		f.Namespace = string(*d.Namespace)
	}
	var err error
	if d.Figure == nil {
		return nil, errAt(n, "missing field \"figure\" (one of %s)", joinComma(jobFigures))
	}
	if f.Figure, err = d.Figure.oneOf(valueOf(n, "figure"), "", jobFigures); err != nil {
		return nil, err
	}
	return f, nil
}

func (f jobFact) about() flow.Text {
	name := nsName(f.Namespace, f.Job)
	return flow.Text{En: f.Figure + " of Job " + name, Zh: "Job " + name + " 的 " + f.Figure}
}

func (f jobFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	_, changed := p.snapshot()
	job, err := p.admin.BatchV1().Jobs(f.Namespace).Get(ctx, f.Job, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "no such Job", false, changed
	}
	if err != nil {
		return err.Error(), false, changed
	}
	var v int64
	switch f.Figure {
	case "succeeded":
		v = int64(job.Status.Succeeded)
	case "failed":
		v = int64(job.Status.Failed)
	case "active":
		v = int64(job.Status.Active)
	case "maxActive":
		if v, err = p.jobMaxActive(ctx, job); err != nil {
			return err.Error(), false, changed
		}
	}
	return strconv.FormatInt(v, 10), true, nil
}
