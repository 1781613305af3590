package scenarios

import (
	"context"
	"fmt"
	"net/http"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ScaleAction sets a Deployment's replicas as kubectl scale does: a
// merge patch {"spec":{"replicas":N}} of its scale subresource
// (deployments/<name>/scale, an autoscaling/v1 Scale).
type ScaleAction struct {
	Deployment ObjectSpec
	Replicas   int32
}

var _ actionRunner = (*ScaleAction)(nil)

// scaleDoc is scale as written.
type scaleDoc struct {
	deploymentDoc `yaml:",inline"`
	Replicas      count `yaml:"replicas" load:"required"`
}

// Kind returns "scale".
func (a *ScaleAction) Kind() string { return "scale" }

// String is the kubectl command it does.
func (a *ScaleAction) String() string {
	return fmt.Sprintf("kubectl scale %s --replicas=%d", deploymentName(a.Deployment), a.Replicas)
}

// parseScale reads {deployment, namespace, replicas}; replicas is 0 or
// more.
func parseScale(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d scaleDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	return &ScaleAction{Deployment: d.ref(), Replicas: int32(d.Replicas)}, nil
}

// run patches the scale subresource as user.
func (a *ScaleAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	ri, err := p.resource(a.Deployment, user)
	if err != nil {
		return StepResult{}, err
	}
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, a.Replicas)
	_, err = ri.Patch(ctx, a.Deployment.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "scale")
	if err != nil {
		return resultOf(err, http.StatusOK), err
	}
	res := StepResult{Status: http.StatusOK}
	addTranscript(&res, "> PATCH %s, Content-Type %s: %s", "deployments/"+a.Deployment.Name+"/scale", string(types.MergePatchType), patch)
	addTranscript(&res, "%s", kubectlOutput(a.Deployment, "scaled"))
	return res, nil
}
