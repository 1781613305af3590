package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeReadyExpectation: the node's Ready condition is True.
type NodeReadyExpectation struct{ Node string }

var _ prober = (*NodeReadyExpectation)(nil)

func (e *NodeReadyExpectation) Kind() string   { return "nodeReady" }
func (e *NodeReadyExpectation) String() string { return "nodeReady " + e.Node }

// parseNodeReady reads a node name.
func parseNodeReady(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	s, err := decodeAs[objectName](n)
	if err != nil {
		return nil, err
	}
	return &NodeReadyExpectation{Node: string(s)}, nil
}

// probe reads the Node's conditions from the API.
func (e *NodeReadyExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	node, err := p.admin.CoreV1().Nodes().Get(ctx, e.Node, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	for _, cond := range node.Status.Conditions {
		if cond.Type == "Ready" {
			if cond.Status == "True" {
				p.saw(conditionShown("Node "+e.Node, string(cond.Type), string(cond.Status), cond.Reason, cond.Message))
				return "", true, nil
			}
			return fmt.Sprintf("Ready %s (%s)", cond.Status, cond.Reason), false, nil
		}
	}
	return "no Ready condition", false, nil
}
