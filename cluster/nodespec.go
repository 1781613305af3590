package cluster

import "github.com/kubesim/kubesim/kubelet"

// NodeSpec describes one simulated node of a cluster: its name, capacity,
// labels and taints (the kubelet's NodeSpec, named here so that the
// scenario engine reaches the kubelets only through the assembler).
type NodeSpec = kubelet.NodeSpec

// DefaultNodeSpec returns a node with the kubelet's default capacity
// (kubelet.DefaultNodeSpec).
func DefaultNodeSpec(name string) NodeSpec { return kubelet.DefaultNodeSpec(name) }

// DefaultNodes returns n default nodes named node-1 ... node-n
// (kubelet.DefaultNodes).
func DefaultNodes(n int) []NodeSpec { return kubelet.DefaultNodes(n) }
