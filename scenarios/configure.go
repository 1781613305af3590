package scenarios

import (
	"slices"

	"github.com/kubesim/kubesim/cluster"
)

// Configure makes cfg the cluster s runs on: its nodes (node-1..N of
// cluster.DefaultNodeSpec, or the listed ones), whether the scheduler
// starts, its topology (cluster.DefaultHAConfig for ha), and its speed (the caller sets cfg.Speed afterwards to
// override it). The other fields of cfg are left alone.
func (s *Scenario) Configure(cfg *cluster.Config) {
	cfg.Nodes = make([]cluster.NodeSpec, 0, len(s.Cluster.Nodes))
	for _, n := range s.Cluster.Nodes {
		n.Labels = cloneMap(n.Labels)
		n.Taints = slices.Clone(n.Taints)
		cfg.Nodes = append(cfg.Nodes, n)
	}
	cfg.Scheduler = s.Cluster.Scheduler
	cfg.Speed = s.Cluster.Speed
	cfg.HA = nil
	if s.Cluster.Topology == TopologyHA {
		ha := cluster.DefaultHAConfig
		cfg.HA = &ha
	}
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
