package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
)

// etcdOptions are the flags of kubesim etcd, named as etcd's own.
type etcdOptions struct {
	name, dataDir, pkiDir                      string
	initialCluster, clusterState, clusterToken string
	listenClient, advertiseClient              []string
	listenPeer, advertisePeer                  []string
}

// DefaultEtcdClientURL is where a member serves clients unless told:
// etcd's default client port, on loopback, with TLS.
const DefaultEtcdClientURL = "https://127.0.0.1:2379"

func newEtcdCommand(stdout io.Writer) *cobra.Command {
	var o etcdOptions
	cmd := &cobra.Command{
		Use:   "etcd",
		Short: "Run one member of an etcd cluster (TLS on client and peer ports) until Ctrl-C",
		Long: `etcd runs one member of an etcd cluster: the etcd server kubesim embeds,
here on TCP with TLS on its client and peer URLs, every client and peer
holding a certificate of the CA in --pki-dir (make it once with
"kubesim etcd certs", then give each member the same directory).
A member of a new cluster waits until a quorum of --initial-cluster has
started. Its logs go to <data-dir>/logs/etcd.log, never to the terminal.
"kubesim serve --etcd-servers" runs the API server on the cluster.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.memberConfig()
			if err != nil {
				return usageError{err}
			}
			return runEtcdMember(cmd.Context(), cfg, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "the member's `name`, as listed in --initial-cluster (required)")
	f.StringVar(&o.dataDir, "data-dir", "", "`DIR` for the member's data (DIR/etcd) and logs (DIR/logs/etcd.log) (required)")
	f.StringVar(&o.pkiDir, "pki-dir", "", "`DIR` made by kubesim etcd certs: the CA and the members' certificates (required)")
	f.StringVar(&o.initialCluster, "initial-cluster", "", "every member's name=peer-URL, comma-separated (default: this member alone, name=https://127.0.0.1:2380)")
	f.StringVar(&o.clusterState, "initial-cluster-state", embedetcd.ClusterStateNew, "new: the members of --initial-cluster form a new cluster; existing: join a running one (after etcdctl member add)")
	f.StringVar(&o.clusterToken, "initial-cluster-token", embedetcd.DefaultClusterToken, "a `token` telling this cluster's first start apart from others'")
	f.StringSliceVar(&o.listenClient, "listen-client-urls", []string{DefaultEtcdClientURL}, "`URLs` to serve clients on (https)")
	f.StringSliceVar(&o.advertiseClient, "advertise-client-urls", nil, "client `URLs` told to the cluster (default: --listen-client-urls)")
	f.StringSliceVar(&o.listenPeer, "listen-peer-urls", nil, "`URLs` to serve peers on (default: this member's URLs in --initial-cluster)")
	f.StringSliceVar(&o.advertisePeer, "initial-advertise-peer-urls", nil, "peer `URLs` told to the cluster (default: --listen-peer-urls)")
	cmd.AddCommand(newEtcdCertsCommand(stdout), newEtcdMembersCommand(stdout))
	return cmd
}

// memberConfig turns the flags into the member's configuration, with
// every problem found at once.
func (o *etcdOptions) memberConfig() (*embedetcd.MemberConfig, error) {
	var errs []error
	if o.name == "" {
		errs = append(errs, errors.New("--name is required"))
	}
	if o.dataDir == "" {
		errs = append(errs, errors.New("--data-dir is required"))
	}
	if o.pkiDir == "" {
		errs = append(errs, errors.New("--pki-dir is required (make it with: kubesim etcd certs --pki-dir DIR)"))
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	cfg := embedetcd.NewMemberConfig(o.name, o.dataDir)
	cfg.InitialCluster = o.initialCluster
	if cfg.InitialCluster == "" {
		cfg.InitialCluster = o.name + "=https://127.0.0.1:2380"
	}
	cfg.ClusterState, cfg.ClusterToken = o.clusterState, o.clusterToken
	lists := []struct {
		flag string
		raw  []string
		dst  *[]url.URL
	}{
		{"listen-client-urls", o.listenClient, &cfg.ListenClientURLs},
		{"advertise-client-urls", o.advertiseClient, &cfg.AdvertiseClientURLs},
		{"listen-peer-urls", o.listenPeer, &cfg.ListenPeerURLs},
		{"initial-advertise-peer-urls", o.advertisePeer, &cfg.AdvertisePeerURLs},
	}
	for _, l := range lists {
		for _, raw := range l.raw {
			u, err := url.Parse(raw)
			if err != nil {
				errs = append(errs, fmt.Errorf("--%s: %w", l.flag, err))
				continue
			}
			*l.dst = append(*l.dst, *u)
		}
	}
	if peers, err := embedetcd.ParseInitialCluster(cfg.InitialCluster); err == nil && len(cfg.ListenPeerURLs) == 0 {
		cfg.ListenPeerURLs = peers[o.name]
	}
	files, err := pki.LoadEtcdPKI(o.pkiDir)
	if err != nil {
		errs = append(errs, err)
	}
	cfg.TLS = embedetcd.MemberTLSOf(files)
	if err := cfg.Validate(); err != nil {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, joined.Unwrap()...)
		} else {
			errs = append(errs, err)
		}
	}
	return cfg, utilerrors.NewAggregate(errs)
}

// runEtcdMember runs the member until ctx is done.
func runEtcdMember(ctx context.Context, cfg *embedetcd.MemberConfig, out io.Writer) error {
	fmt.Fprintf(out, "kubesim etcd: member %s starting (initial cluster %s, state %s); logs in %s\n", cfg.Name, cfg.InitialCluster, cfg.ClusterState, cfg.LogFile)
	if cfg.ClusterState == embedetcd.ClusterStateNew {
		fmt.Fprintln(out, "  a new cluster's member waits here until a quorum of the initial cluster has started")
	}
	m, err := embedetcd.StartMember(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	fmt.Fprintf(out, "kubesim etcd: member %s (ID %x) ready: clients at %s, peers at %s, data in %s\n", m.Name(), m.ID(), strings.Join(m.ClientURLs(), ","), m.PeerAddr(), cfg.Dir)
	fmt.Fprintln(out, "Press Ctrl-C to stop.")
	select {
	case <-ctx.Done():
	case err = <-m.Err():
	}
	m.Close()
	fmt.Fprintf(out, "kubesim etcd: member %s stopped\n", m.Name())
	if err != nil {
		return fmt.Errorf("etcd member %s: %w", cfg.Name, err)
	}
	return nil
}

func newEtcdCertsCommand(stdout io.Writer) *cobra.Command {
	var dir string
	var hosts []string
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Make (or complete) the etcd CA and the certificates of the members and the API server",
		Long: `certs writes into --pki-dir what kubeadm puts in /etc/kubernetes/pki/etcd:
a CA of its own (ca.crt, ca.key), the members' serving and peer
certificates (server.*, peer.*: for localhost, 127.0.0.1, ::1 and
--hosts), and the API server's client certificate (apiserver-etcd-client.*).
Files already there and still good are kept; the CA always is.`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			if dir == "" {
				return usageError{errors.New("--pki-dir is required")}
			}
			cfg := pki.NewConfig("")
			cfg.Dir, cfg.Hosts = dir, hosts
			cfg.Logf = func(format string, args ...any) { fmt.Fprintf(stdout, format+"\n", args...) }
			files, err := pki.CreateEtcdPKI(cfg)
			if err != nil {
				return err
			}
			abs, _ := filepath.Abs(files.Dir)
			fmt.Fprintf(stdout, "kubesim etcd certs: %s holds the etcd CA and certificates; for serve:\n", abs)
			fmt.Fprintf(stdout, "  --etcd-cafile %s --etcd-certfile %s --etcd-keyfile %s\n", files.CACert, files.ClientCert, files.ClientKey)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "pki-dir", "", "`DIR` to write the files into (created 0700)")
	cmd.Flags().StringSliceVar(&hosts, "hosts", nil, "extra IP addresses or DNS names the members are reached by (other machines)")
	return cmd
}
