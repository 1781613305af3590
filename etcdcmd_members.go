package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/api/resource"

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
	tlsCfg, err := transport.TLSInfo{TrustedCAFile: files.CACert, CertFile: files.ClientCert, KeyFile: files.ClientKey}.ClientConfig()
	if err != nil {
		return fmt.Errorf("etcd client certificate: %w", err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, TLS: tlsCfg, DialTimeout: memberStatusTimeout, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("etcd at %s: %w", strings.Join(endpoints, ","), err)
	}
	defer client.Close()
	members, err := embedetcd.ClusterStatus(ctx, client, memberStatusTimeout)
	if err != nil {
		return fmt.Errorf("%w (asked %s)", err, strings.Join(endpoints, ","))
	}
	return writeMemberTable(out, members)
}

// writeMemberTable writes members as a table, etcdctl's columns that
// fit 80 columns, then one line per member that did not answer.
func writeMemberTable(out io.Writer, members []embedetcd.MemberStatus) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tLEADER\tRAFT TERM\tRAFT INDEX\tDB SIZE\tCLIENT URL")
	var down []string
	for _, m := range members {
		id := fmt.Sprintf("%x", m.ID)
		if m.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t?\t?\t?\t?\t%s\n", m.Name, id, m.Endpoint)
			down = append(down, fmt.Sprintf("%s did not answer: %v", m.Name, m.Err))
			continue
		}
		leader := ""
		if m.IsLeader {
			leader = "*"
		}
		size := resource.NewQuantity(m.DBSize, resource.BinarySI)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", m.Name, id, leader, m.RaftTerm, m.RaftIndex, size, m.Endpoint)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range down {
		fmt.Fprintln(out, d)
	}
	if _, ok := embedetcd.LeaderOf(members); !ok {
		fmt.Fprintln(out, "no member that answered is the raft leader: the cluster has no quorum, or is electing one")
	}
	return nil
}
