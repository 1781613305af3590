package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file is node control: which nodes the cluster has and whether
// their kubelets run, and stopping or starting one, with errors a person
// can act on. The control endpoint (nodecontrol_server.go) and `kubesim
// node` use it, and so does the terminal UI.

// Errors of node control; the ones returned wrap these (errors.Is).
var (
	// ErrUnknownNode: the cluster started no kubelet for that node.
	ErrUnknownNode = errors.New("unknown node")
	// ErrKubeletStopped: stopping a kubelet that does not run.
	ErrKubeletStopped = errors.New("kubelet already stopped")
	// ErrKubeletRunning: starting a kubelet that runs.
	ErrKubeletRunning = errors.New("kubelet already running")
)

// Kubelet states of NodeKubelet.
const (
	KubeletRunning = "running"
	KubeletStopped = "stopped"
	// KubeletNone is a Node created through the API that kubesim gave no
	// kubelet (Config.AttachNodes off): it cannot be started.
	KubeletNone = "none"
)

// NodeKubelet is a node and the state of its kubelet.
type NodeKubelet struct {
	Name string `json:"name"`
	// Kubelet is KubeletRunning, KubeletStopped or KubeletNone.
	Kubelet string `json:"kubelet"`
	// Ready is the status of the Node's Ready condition as the API
	// server has it (True, False, Unknown); "" when the Node object or
	// its condition is absent.
	Ready string `json:"ready"`
}

// NodeKubelets lists the nodes by name: every node the cluster started a
// kubelet for (running or stopped) and every Node object, with the
// Ready condition the API server has for it.
func (c *Cluster) NodeKubelets(ctx context.Context) ([]NodeKubelet, error) {
	admin, err := c.AdminClient()
	if err != nil {
		return nil, err
	}
	list, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("cluster: list nodes: %w", err)
	}
	byName := map[string]*NodeKubelet{}
	c.compMu.Lock()
	for name := range c.specs {
		byName[name] = &NodeKubelet{Name: name, Kubelet: c.kubeletState(name)}
	}
	c.compMu.Unlock()
	for i := range list.Items {
		n := &list.Items[i]
		nk, ok := byName[n.Name]
		if !ok {
			nk = &NodeKubelet{Name: n.Name, Kubelet: KubeletNone}
			byName[n.Name] = nk
		}
		nk.Ready = readyStatus(n)
	}
	out := make([]NodeKubelet, 0, len(byName))
	for _, nk := range byName {
		out = append(out, *nk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// kubeletState is the state of the kubelet of a node with a spec; the
// caller holds compMu.
func (c *Cluster) kubeletState(name string) string {
	if _, ok := c.kubelets[name]; ok {
		return KubeletRunning
	}
	return KubeletStopped
}

// readyStatus is the status of n's Ready condition ("" if it has none).
func readyStatus(n *corev1.Node) string {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return string(cond.Status)
		}
	}
	return ""
}

// StopNodeKubelet stops the kubelet of node name, as `systemctl stop
// kubelet` would on a machine: the Node object stays, and nobody renews
// its Lease or reports its status any more. The error wraps
// ErrUnknownNode or ErrKubeletStopped when that is the reason.
func (c *Cluster) StopNodeKubelet(name string) error {
	if err := c.checkKubelet(name, false); err != nil {
		return err
	}
	return c.StopKubelet(name)
}

// StartNodeKubelet starts the kubelet of node name again, with the spec
// it was first started with: it registers its Node and renews its Lease
// again. The error wraps ErrUnknownNode or ErrKubeletRunning when that
// is the reason.
func (c *Cluster) StartNodeKubelet(name string) error {
	if err := c.checkKubelet(name, true); err != nil {
		return err
	}
	c.compMu.Lock()
	spec := c.specs[name]
	c.compMu.Unlock()
	return c.StartKubelet(spec)
}

// checkKubelet returns why the kubelet of name cannot be started (start)
// or stopped: the node is unknown, or its kubelet is already in that
// state; nil when it can.
func (c *Cluster) checkKubelet(name string, start bool) error {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	if _, ok := c.specs[name]; !ok {
		known := make([]string, 0, len(c.specs))
		for n := range c.specs {
			known = append(known, n)
		}
		sort.Strings(known)
		if len(known) == 0 {
			return fmt.Errorf("%w %q: this kubesim runs no kubelets", ErrUnknownNode, name)
		}
		return fmt.Errorf("%w %q (the nodes with a kubelet: %s)", ErrUnknownNode, name, strings.Join(known, ", "))
	}
	_, runs := c.kubelets[name]
	switch {
	case start && runs:
		return fmt.Errorf("%s: %w", name, ErrKubeletRunning)
	case !start && !runs:
		return fmt.Errorf("%s: %w", name, ErrKubeletStopped)
	}
	return nil
}
