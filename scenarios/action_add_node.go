package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
)

// AddNodeAction starts a kubelet for a new node; it registers its Node.
type AddNodeAction struct{ Node cluster.NodeSpec }

var _ actionRunner = (*AddNodeAction)(nil)

func (a *AddNodeAction) Kind() string { return "addNode" }
func (a *AddNodeAction) String() string {
	return fmt.Sprintf("add node %s (cpu %s, memory %s, pods %d)", a.Node.Name, a.Node.CPU.String(), a.Node.Memory.String(), a.Node.Pods)
}

// parseAddNode reads a node, as cluster.nodes lists them.
func parseAddNode(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d nodeDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	spec, err := d.spec(n)
	if err != nil {
		return nil, err
	}
	return &AddNodeAction{Node: spec}, nil
}

// run starts the node's kubelet, and remembers its spec for a later
// startKubelet.
func (a *AddNodeAction) run(_ context.Context, p *player, _ string) (StepResult, error) {
	p.nodeSpecs[a.Node.Name] = a.Node
	err := p.cluster.StartKubelet(a.Node)
	return StepResult{}, err
}
