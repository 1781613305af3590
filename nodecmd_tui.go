package main

import (
	"context"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/tui"
)

// The terminal UI's node overlay (K) stops and starts kubelets through
// the session, which asks its cluster, as `kubesim node` asks one in
// another process.

var _ tui.NodeControl = (*session)(nil)

// Kubelets lists the session's nodes with the state of their kubelets.
func (s *session) Kubelets(ctx context.Context) ([]tui.NodeKubelet, error) {
	nodes, err := s.c.NodeKubelets(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tui.NodeKubelet, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, tui.NodeKubelet{Name: n.Name, Running: n.Kubelet == cluster.KubeletRunning, NoKubelet: n.Kubelet == cluster.KubeletNone})
	}
	return out, nil
}

// StopKubelet stops the kubelet of node name (cluster.StopNodeKubelet).
func (s *session) StopKubelet(_ context.Context, name string) error { return s.c.StopNodeKubelet(name) }

// StartKubelet starts the kubelet of node name again
// (cluster.StartNodeKubelet).
func (s *session) StartKubelet(_ context.Context, name string) error {
	return s.c.StartNodeKubelet(name)
}
