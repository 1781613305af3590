package scenarios

import (
	"context"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// validReplicas accepts a number of replicas: 0 or more, written as
// strconv writes it.
func validReplicas(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 0 && strconv.Itoa(n) == v
}

// replicasFact is the number of replicas a Deployment asks for
// (spec.replicas, read from the API after the step): what kubectl scale,
// or a HorizontalPodAutoscaler through the scale subresource, set.
type replicasFact struct{ Deployment ObjectSpec }

func parseReplicasFact(d *questionDoc, n *yaml.Node) (fact, error) {
	if d.Deployment == nil {
		return nil, errAt(n, "missing field \"deployment\"")
	}
	return replicasFact{deploymentDoc{*d.Deployment, d.Namespace}.ref()}, nil
}

func (f replicasFact) about() flow.Text {
	name := nsName(f.Deployment.Namespace, f.Deployment.Name)
	return flow.Text{En: "replicas of deployment " + name, Zh: "Deployment " + name + " 的副本数"}
}

func (f replicasFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	_, changed := p.snapshot()
	d, err := p.admin.AppsV1().Deployments(f.Deployment.Namespace).Get(ctx, f.Deployment.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "no such deployment", false, changed
	}
	if err != nil {
		return err.Error(), false, changed
	}
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	return strconv.Itoa(int(replicas)), true, nil
}
