package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeTaintsExpectation: the node's spec.taints are exactly Taints, each
// written key:Effect (a taint's value and timeAdded are not compared); an
// empty list means none.
type NodeTaintsExpectation struct {
	Node   string
	Taints []string // sorted
}

var _ prober = (*NodeTaintsExpectation)(nil)

// nodeTaintsDoc is nodeTaints as written.
type nodeTaintsDoc struct {
	Node   objectName `yaml:"node" load:"required"`
	Taints *[]str     `yaml:"taints"`
}

// Kind returns "nodeTaints".
func (e *NodeTaintsExpectation) Kind() string { return "nodeTaints" }

// String says which taints the node must have.
func (e *NodeTaintsExpectation) String() string {
	if len(e.Taints) == 0 {
		return "node " + e.Node + " has no taints"
	}
	return fmt.Sprintf("node %s has taints %s", e.Node, strings.Join(e.Taints, ", "))
}

// parseNodeTaints reads {node, taints}: both are required; each taint is
// key:Effect with Effect NoSchedule, PreferNoSchedule or NoExecute.
func parseNodeTaints(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[nodeTaintsDoc](n)
	if err != nil {
		return nil, err
	}
	if d.Taints == nil {
		return nil, errAt(n, "missing field \"taints\" (a list of key:Effect, [] for none)")
	}
	e := &NodeTaintsExpectation{Node: string(d.Node), Taints: []string{}}
	for i, t := range *d.Taints {
		s := string(t)
		k, effect, found := strings.Cut(s, ":")
		if !found || k == "" || !slices.Contains([]string{"NoSchedule", "PreferNoSchedule", "NoExecute"}, effect) {
			return nil, errAt(valueOf(n, "taints").Content[i], "%q is not key:Effect (Effect NoSchedule, PreferNoSchedule or NoExecute)", s)
		}
		e.Taints = append(e.Taints, s)
	}
	slices.Sort(e.Taints)
	return e, nil
}

// probe reads the Node's taints from the API.
func (e *NodeTaintsExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	node, err := p.admin.CoreV1().Nodes().Get(ctx, e.Node, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	got := []string{}
	var full []string
	for _, t := range node.Spec.Taints {
		got = append(got, t.Key+":"+string(t.Effect))
		full = append(full, t.ToString())
	}
	slices.Sort(got)
	if slices.Equal(got, e.Taints) {
		if len(full) == 0 {
			p.saw(shown("no_taints", e.Node))
		} else {
			p.saw(shown("taints", e.Node, strings.Join(full, ", ")))
		}
		return "", true, nil
	}
	if len(got) == 0 {
		return "no taints", false, nil
	}
	return "taints " + strings.Join(got, ", "), false, nil
}
