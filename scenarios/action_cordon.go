package scenarios

import (
	"context"
	"encoding/json"
	"net/http"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
)

// CordonAction marks a node unschedulable (cordon) or schedulable again
// (uncordon) as kubectl cordon and uncordon do (k8s.io/kubectl's
// CordonHelper): it reads the Node and, when spec.unschedulable is not
// already as asked, sends the two-way strategic merge patch from the
// Node to the Node with it set ({"spec":{"unschedulable":true}}, or
// null to unset it). The node lifecycle controller then adds (or
// removes) the taint node.kubernetes.io/unschedulable:NoSchedule.
type CordonAction struct {
	Node   string
	Cordon bool // false: uncordon
}

var _ actionRunner = (*CordonAction)(nil)

func init() {
	registerTranscriptZh(map[string]string{
		"> PATCH nodes/%s, Content-Type %s: %s": "> PATCH nodes/%s，Content-Type %s：%s",
	})
}

// Kind returns "cordon" or "uncordon".
func (a *CordonAction) Kind() string {
	if a.Cordon {
		return "cordon"
	}
	return "uncordon"
}

// String is the kubectl command it does.
func (a *CordonAction) String() string { return "kubectl " + a.Kind() + " " + a.Node }

// parseCordon reads a node name, for cordon and uncordon.
func parseCordon(_ *loader, key string, n *yaml.Node) (actionRunner, error) {
	var node objectName
	if err := decode(n, &node); err != nil {
		return nil, err
	}
	return &CordonAction{Node: string(node), Cordon: key == "cordon"}, nil
}

// run cordons or uncordons the node as user.
func (a *CordonAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	cs, err := p.typedClient(user)
	if err != nil {
		return StepResult{}, err
	}
	var res StepResult
	err = setUnschedulable(ctx, cs, a.Node, a.Cordon, func(format string, args ...any) { addTranscript(&res, format, args...) })
	if err != nil {
		failed := resultOf(err, http.StatusOK)
		res.Status, res.Message = failed.Status, failed.Message
		return res, err
	}
	res.Status = http.StatusOK
	return res, nil
}

// setUnschedulable is kubectl's RunCordonOrUncordon for one node: it
// writes what kubectl prints with out ("node/node-1 cordoned", "node/
// node-1 already cordoned").
func setUnschedulable(ctx context.Context, cs kubernetes.Interface, name string, desired bool, out func(string, ...any)) error {
	verb := "cordon"
	if !desired {
		verb = "uncordon"
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if node.Spec.Unschedulable == desired {
		out("%s", "node/"+name+" already "+verb+"ed")
		return nil
	}
	patch, err := unschedulablePatch(node, desired)
	if err != nil {
		return err
	}
	out("> PATCH nodes/%s, Content-Type %s: %s", name, string(types.StrategicMergePatchType), string(patch))
	if _, err := cs.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	out("%s", "node/"+name+" "+verb+"ed")
	return nil
}

// unschedulablePatch is the two-way strategic merge patch from node to
// node with spec.unschedulable set to desired, as CordonHelper makes it.
func unschedulablePatch(node *corev1.Node, desired bool) ([]byte, error) {
	oldData, err := json.Marshal(node)
	if err != nil {
		return nil, err
	}
	want := node.DeepCopy()
	want.Spec.Unschedulable = desired
	newData, err := json.Marshal(want)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(oldData, newData, node)
}
