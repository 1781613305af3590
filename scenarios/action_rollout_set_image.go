package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// SetImageAction changes a container's image in a Deployment's pod
// template as kubectl set image does: it reads the Deployment, sets the
// image of the container (or init container) of that name, and sends
// the difference as a strategic merge patch (with the field manager
// kubectl-set); no change sends nothing.
type SetImageAction struct {
	Deployment       ObjectSpec
	Container, Image string
}

var _ actionRunner = (*SetImageAction)(nil)

// setImageDoc is setImage as written.
type setImageDoc struct {
	deploymentDoc `yaml:",inline"`
	Container     str `yaml:"container" load:"required"`
	Image         str `yaml:"image" load:"required"`
}

// Kind returns "setImage".
func (a *SetImageAction) Kind() string { return "setImage" }

// String is the kubectl command it does.
func (a *SetImageAction) String() string {
	return fmt.Sprintf("kubectl set image %s %s=%s", deploymentName(a.Deployment), a.Container, a.Image)
}

// parseSetImage reads {deployment, namespace, container, image}, all but
// namespace required.
func parseSetImage(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d setImageDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &SetImageAction{Deployment: d.ref(), Container: string(d.Container), Image: string(d.Image)}
	for _, f := range []struct{ key, v string }{{"container", a.Container}, {"image", a.Image}} {
		if f.v == "" {
			return nil, errAt(valueOf(n, f.key), "empty")
		}
	}
	return a, nil
}

func init() {
	registerTranscriptZh(map[string]string{
		"no change: container %s has image %s already, so kubectl sends no patch": "没有变化：容器 %s 的镜像已经是 %s，所以 kubectl 不发送 patch",
	})
}

// run reads the Deployment, makes the patch and sends it, as user.
func (a *SetImageAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	d, err := p.getDeployment(ctx, a.Deployment, user)
	if err != nil {
		return resultOf(err, http.StatusOK), err
	}
	patch, err := setImagePatch(d, a.Container, a.Image)
	if err != nil {
		return StepResult{Message: err.Error()}, err
	}
	if string(patch) == "{}" {
		res := StepResult{Status: http.StatusOK}
		addTranscript(&res, "no change: container %s has image %s already, so kubectl sends no patch", a.Container, a.Image)
		return res, nil
	}
	ri, err := p.resource(a.Deployment, user)
	if err != nil {
		return StepResult{}, err
	}
	u, err := ri.Patch(ctx, a.Deployment.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-set"})
	p.remember(u)
	if err != nil {
		err = fmt.Errorf("failed to patch image update to pod template: %w", err)
		return resultOf(err, http.StatusOK), err
	}
	res := StepResult{Status: http.StatusOK}
	addTranscript(&res, "> PATCH %s, Content-Type %s: %s", "deployments/"+a.Deployment.Name, string(types.StrategicMergePatchType), patch)
	addTranscript(&res, "%s", kubectlOutput(a.Deployment, "image updated"))
	return res, nil
}

// setImagePatch is the strategic merge patch from d to d with the image
// of container set, as kubectl's CalculatePatch makes it; an error when
// d has no container of that name.
func setImagePatch(d *appsv1.Deployment, container, image string) ([]byte, error) {
	before, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	changed := d.DeepCopy()
	spec := &changed.Spec.Template.Spec
	found := setContainerImage(spec.InitContainers, container, image)
	if setContainerImage(spec.Containers, container, image) {
		found = true
	}
	if !found {
		return nil, fmt.Errorf("error: unable to find container named %q", container)
	}
	after, err := json.Marshal(changed)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(before, after, appsv1.Deployment{})
}

// setContainerImage sets the image of the container named name and
// says whether there was one.
func setContainerImage(cs []corev1.Container, name, image string) bool {
	for i := range cs {
		if cs[i].Name == name {
			cs[i].Image = image
			return true
		}
	}
	return false
}
