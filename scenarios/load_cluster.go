package scenarios

import (
	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/cluster"
)

// clusterDoc is a scenario's cluster section as written.
type clusterDoc struct {
	Nodes     *nodeList `yaml:"nodes"`
	Scheduler *boolean  `yaml:"scheduler"`
	Speed     *number   `yaml:"speed"`
	Topology  *str      `yaml:"topology"`
}

// taintEffects are the effects a taint may have.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// apply sets in c, which holds the defaults, what d (read from n) gives.
func (d *clusterDoc) apply(n *yaml.Node, c *ClusterSpec) error {
	if d.Nodes != nil {
		c.Nodes = *d.Nodes
	}
	if d.Scheduler != nil {
		c.Scheduler = bool(*d.Scheduler)
	}
	if d.Speed != nil {
		c.Speed = float64(*d.Speed)
		if c.Speed < 0 {
			v := valueOf(n, "speed")
			return errAt(v, "%s is negative", v.Value)
		}
	}
	var err error
	c.Topology, err = d.Topology.oneOf(valueOf(n, "topology"), c.Topology, Topologies)
	return err
}

// nodeList is cluster.nodes: a number of default nodes (0 to 100), or a
// list of nodes, each named once.
type nodeList []cluster.NodeSpec

func (l *nodeList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		var docs []nodeDoc
		if err := decode(n, &docs); err != nil {
			return err
		}
		*l = nil
		seen := map[string]bool{}
		for i, d := range docs {
			spec, err := d.spec(n.Content[i])
			if err != nil {
				return err
			}
			if seen[spec.Name] {
				return errAt(n.Content[i], "node %q is listed twice", spec.Name)
			}
			seen[spec.Name] = true
			*l = append(*l, spec)
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return errAt(n, "expected a number of nodes or a list of nodes, got %s", describe(n))
	}
	var count integer
	if err := count.UnmarshalYAML(n); err != nil {
		return err
	}
	if count < 0 || count > 100 {
		return errAt(n, "%d nodes: use 0 to 100", count)
	}
	*l = cluster.DefaultNodes(int(count))
	return nil
}

// nodeDoc is a node as written (in cluster.nodes, or addNode's).
type nodeDoc struct {
	Name   objectName            `yaml:"name" load:"required"`
	CPU    *quantity             `yaml:"cpu"`
	Memory *quantity             `yaml:"memory"`
	Pods   *integer              `yaml:"pods"`
	Labels map[mapKey]scalarText `yaml:"labels"`
	Taints []taintDoc            `yaml:"taints"`
}

// taintDoc is a node's taint as written.
type taintDoc struct {
	Key    str          `yaml:"key" load:"required"`
	Value  *strOrNumber `yaml:"value"`
	Effect str          `yaml:"effect" load:"required"`
}

// spec returns the node d (read from n) describes: a default node
// (cluster.DefaultNodeSpec) with what d gives.
func (d *nodeDoc) spec(n *yaml.Node) (cluster.NodeSpec, error) {
	spec := cluster.DefaultNodeSpec(string(d.Name))
	if d.CPU != nil {
		spec.CPU = resource.Quantity(*d.CPU)
	}
	if d.Memory != nil {
		spec.Memory = resource.Quantity(*d.Memory)
	}
	if d.Pods != nil {
		spec.Pods = int64(*d.Pods)
	}
	if d.Labels != nil {
		spec.Labels = stringMap(d.Labels)
	}
	for i, t := range d.Taints {
		item := valueOf(n, "taints").Content[i]
		if err := oneOf(valueOf(item, "effect"), string(t.Effect), taintEffects); err != nil {
			return spec, err
		}
		taint := corev1.Taint{Key: string(t.Key), Effect: corev1.TaintEffect(t.Effect)}
		if t.Value != nil {
			taint.Value = string(*t.Value)
		}
		spec.Taints = append(spec.Taints, taint)
	}
	return spec, nil
}

// stringMap returns m (labels, annotations) as strings.
func stringMap(m map[mapKey]scalarText) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[string(k)] = string(v)
	}
	return out
}
