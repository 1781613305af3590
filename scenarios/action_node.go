package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
)

// NodeAction is removeNode, stopKubelet or startKubelet of one node.
type NodeAction struct {
	// Verb is "removeNode", "stopKubelet" or "startKubelet".
	Verb string
	Node string
}

var _ actionRunner = (*NodeAction)(nil)

func (a *NodeAction) Kind() string   { return a.Verb }
func (a *NodeAction) String() string { return a.Verb + " " + a.Node }

// parseNodeAction reads the node name of removeNode, stopKubelet and
// startKubelet.
func parseNodeAction(_ *loader, key string, n *yaml.Node) (actionRunner, error) {
	name, err := decodeAs[objectName](n)
	if err != nil {
		return nil, err
	}
	return &NodeAction{Verb: key, Node: string(name)}, nil
}

// run stops the node's kubelet and deletes the Node (removeNode), stops
// the kubelet only (stopKubelet), or starts it (startKubelet) with the
// spec the node was started with, or cluster.DefaultNodeSpec for a node
// this run did not start.
func (a *NodeAction) run(ctx context.Context, p *player, _ string) (StepResult, error) {
	switch a.Verb {
	case "removeNode":
		return StepResult{}, p.cluster.RemoveNode(ctx, a.Node)
	case "stopKubelet":
		return StepResult{}, p.cluster.StopKubelet(a.Node)
	case "startKubelet":
		spec, ok := p.nodeSpecs[a.Node]
		if !ok {
			spec = cluster.DefaultNodeSpec(a.Node)
		}
		return StepResult{}, p.cluster.StartKubelet(spec)
	}
	return StepResult{}, fmt.Errorf("unknown node action %s", a.Verb)
}
