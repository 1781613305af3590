package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/cluster"
)

// newNodeCommand is `kubesim node list|stop|start`: it acts on the nodes
// of a kubesim running in another process (serve or play), through the
// control socket in that kubesim's data dir.
func newNodeCommand(stdout io.Writer) *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "node",
		Short: "List the nodes of a running kubesim, stop or start a node's kubelet",
		Long: `node acts on a kubesim that runs in another terminal (kubesim serve, or
kubesim play): "node stop NAME" stops the kubelet of node NAME, as
"systemctl stop kubelet" would on a machine. The Node object stays, but
nothing renews its Lease or reports its status any more, so that you can
watch the control plane notice (kubectl get nodes -w). "node start NAME"
starts it again; "node list" shows each node, whether its kubelet runs and
the Node's Ready condition.

Without --data-dir, node finds the kubesim running with a temporary data
dir (serve and play without --data-dir); for one started with --data-dir
DIR, give the same --data-dir DIR.`,
		Example: `  kubesim node list
  kubesim node stop node-2
  kubesim node start node-2 --data-dir ~/kubesim`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&dataDir, "data-dir", "", "the data `DIR` of the kubesim to act on (default: the one running with a temporary data dir)")
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List the nodes, whether their kubelet runs, and whether they are Ready",
			Args:  noArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return withControl(dataDir, func(cc *cluster.ControlClient) error { return listNodes(cmd.Context(), cc, stdout) })
			},
		},
		nodeActionCommand("stop", "Stop the kubelet of node NAME (the Node object stays)", &dataDir, stdout),
		nodeActionCommand("start", "Start the kubelet of node NAME again", &dataDir, stdout),
	)
	return cmd
}

// nodeActionCommand is `kubesim node stop NAME` or `kubesim node start NAME`.
// dataDir is the --data-dir flag's value, read when the command runs.
func nodeActionCommand(verb, short string, dataDir *string, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withControl(*dataDir, func(cc *cluster.ControlClient) error {
				return nodeAction(cmd.Context(), cc, verb, args[0], stdout)
			})
		},
	}
}

// withControl finds the running kubesim (in dataDir, or the one with a
// temporary data dir when it is empty) and runs f with its client.
func withControl(dataDir string, f func(*cluster.ControlClient) error) error {
	var cc *cluster.ControlClient
	var err error
	if dataDir != "" {
		cc, err = cluster.DialControl(dataDir)
	} else {
		cc, err = cluster.FindControl()
	}
	if err != nil {
		return err
	}
	defer cc.Close()
	return f(cc)
}

// listNodes prints the nodes as a table.
func listNodes(ctx context.Context, cc *cluster.ControlClient, out io.Writer) error {
	nodes, err := cc.Nodes(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKUBELET\tREADY")
	for _, n := range nodes {
		ready := n.Ready
		if ready == "" {
			ready = "<none>"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", n.Name, n.Kubelet, ready)
	}
	return tw.Flush()
}

// nodeAction stops or starts the kubelet of node name and says what that
// means.
func nodeAction(ctx context.Context, cc *cluster.ControlClient, verb, name string, out io.Writer) error {
	var err error
	if verb == "stop" {
		_, err = cc.StopKubelet(ctx, name)
	} else {
		_, err = cc.StartKubelet(ctx, name)
	}
	if err != nil {
		return err
	}
	if verb == "stop" {
		fmt.Fprintf(out, "kubelet of %s stopped (kubesim in %s)\n", name, cc.DataDir)
		fmt.Fprintf(out, "The Node stays; nothing renews its Lease or reports its status until: kubesim node start %s\n", name)
		return nil
	}
	fmt.Fprintf(out, "kubelet of %s started (kubesim in %s)\n", name, cc.DataDir)
	fmt.Fprintln(out, "It registers the Node again, renews its Lease and reports its status.")
	return nil
}

// nodeHint is the line serve prints about `kubesim node`: the data dir
// is named when it was given (one found without --data-dir is not).
func nodeHint(dataDir string) string {
	flag := ""
	if dataDir != "" {
		flag = " --data-dir " + dataDir
	}
	return "stop a node:    kubesim node stop node-1" + flag + "   (kubesim node list" + flag + ")"
}
