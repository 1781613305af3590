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

// scaleKeys are the fields of scale.
var scaleKeys = []string{"deployment", "namespace", "replicas"}

// Kind returns "scale".
func (a *ScaleAction) Kind() string { return "scale" }

// String is the kubectl command it does.
func (a *ScaleAction) String() string {
	return fmt.Sprintf("kubectl scale %s --replicas=%d", deploymentName(a.Deployment), a.Replicas)
}

// parseScale reads {deployment, namespace, replicas}; replicas is 0 or
// more.
func parseScale(l *loader, key string, n *yaml.Node) (actionRunner, error) {
	fields, _, err := l.fields(n, key, scaleKeys)
	if err != nil {
		return nil, err
	}
	a := &ScaleAction{}
	if a.Deployment, err = l.deploymentRef(n, fields, key); err != nil {
		return nil, err
	}
	f, ok := fields["replicas"]
	if !ok {
		return nil, l.errAt(n, "%s: missing field \"replicas\"", key)
	}
	v, err := l.atLeast(f.val, key+".replicas", 0)
	if err != nil {
		return nil, err
	}
	a.Replicas = int32(v)
	return a, nil
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
