package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
)

// memberStatusTimeout bounds each call kubesim etcd members makes.
const memberStatusTimeout = 3 * time.Second

func newEtcdMembersCommand(stdout io.Writer) *cobra.Command {
	var endpoints []string
	var pkiDir string
	cmd := &cobra.Command{
		Use:   "members",
		Short: "List the members of an etcd cluster with their raft leader, term and index",
		Long: `members asks an etcd cluster what etcdctl's "member list" and "endpoint
status" show together: each member's name, ID and client URL, and what
the member itself reports of raft: which member is the leader, the
term (one more each election) and the index of the last log entry, and
its database size. A stopped member is listed with what reaching it
met. It connects with the API server's client certificate of --pki-dir.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pkiDir == "" {
				return usageError{errors.New("--pki-dir is required (the directory kubesim etcd certs made)")}
			}
			return listEtcdMembers(cmd.Context(), endpoints, pkiDir, stdout)
		},
	}
	cmd.Flags().StringSliceVar(&endpoints, "endpoints", []string{DefaultEtcdClientURL}, "client `URLs` of members to ask, comma-separated")
	cmd.Flags().StringVar(&pkiDir, "pki-dir", "", "`DIR` made by kubesim etcd certs (required)")
	return cmd
}

// listEtcdMembers prints the members of the cluster at endpoints.
func listEtcdMembers(ctx context.Context, endpoints []string, pkiDir string, out io.Writer) error {
	files, err := pki.LoadEtcdPKI(pkiDir)
	if err != nil {
		return err
	}
	client, err := embedetcd.NewTLSClient(endpoints, embedetcd.LocalClusterFilesOf(files), memberStatusTimeout)
	if err != nil {
		return fmt.Errorf("etcd at %s: %w", strings.Join(endpoints, ","), err)
	}
	defer client.Close()
	members, err := embedetcd.ClusterStatus(ctx, client, memberStatusTimeout)
	if err != nil {
		return fmt.Errorf("%w (asked %s)", err, strings.Join(endpoints, ","))
	}
	return embedetcd.WriteMemberTable(out, members)
}
