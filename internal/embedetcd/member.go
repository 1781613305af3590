package embedetcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/storage/wal"
)

// Cluster states of a member's first start (etcd's --initial-cluster-state).
const (
	ClusterStateNew      = embed.ClusterStateFlagNew
	ClusterStateExisting = embed.ClusterStateFlagExisting
)

// DefaultClusterToken is etcd's own default --initial-cluster-token.
const DefaultClusterToken = "etcd-cluster"

// MemberTLS are the PEM files of a member: its CA, which every client
// and peer certificate must be signed by (client-cert-auth on both
// ports, as kubeadm runs etcd), and the pairs it shows clients and peers.
type MemberTLS struct {
	CAFile                string
	ServerCert, ServerKey string
	PeerCert, PeerKey     string
}

// MemberConfig configures one member of an etcd cluster reached over
// TCP with TLS (StartMember), the way etcd's flags of the same names do.
type MemberConfig struct {
	// Name is the member's name (--name); InitialCluster must list it.
	Name string
	// Dir holds the member's data (--data-dir); LogFile its logs.
	Dir     string
	LogFile string
	// InitialCluster lists every member's name and peer URL
	// ("m1=https://127.0.0.1:2380,m2=..."); used on the first start only,
	// as etcd does: a member with data reads its membership from it.
	InitialCluster string
	// ClusterState is ClusterStateNew when the members in InitialCluster
	// form a new cluster, ClusterStateExisting when this member joins a
	// running one (after `etcdctl member add`).
	ClusterState string
	// ClusterToken tells clusters started with the same members apart.
	ClusterToken string
	// ListenClientURLs and AdvertiseClientURLs are where clients connect
	// (https); ListenPeerURLs and AdvertisePeerURLs where members do.
	// Empty advertise lists mean the listen ones.
	ListenClientURLs, AdvertiseClientURLs []url.URL
	ListenPeerURLs, AdvertisePeerURLs     []url.URL
	// TLS is required: the member speaks only TLS, and only to holders
	// of a certificate signed by TLS.CAFile.
	TLS MemberTLS
	// UnsafeNoFsync, ProgressNotifyInterval and MaxRequestBytes are as
	// in Config.
	UnsafeNoFsync          bool
	ProgressNotifyInterval time.Duration
	MaxRequestBytes        uint
}

// NewMemberConfig returns the defaults for member name keeping its data
// in dataDir/etcd and its logs in dataDir/logs/etcd.log: a new cluster,
// etcd's default token, progress notifications and request size as in
// NewConfig.
func NewMemberConfig(name, dataDir string) *MemberConfig {
	return &MemberConfig{
		Name:                   name,
		Dir:                    filepath.Join(dataDir, "etcd"),
		LogFile:                filepath.Join(dataDir, "logs", "etcd.log"),
		ClusterState:           ClusterStateNew,
		ClusterToken:           DefaultClusterToken,
		ProgressNotifyInterval: DefaultProgressNotifyInterval,
		MaxRequestBytes:        DefaultMaxRequestBytes,
	}
}

// Validate reports every problem with c, each naming the etcd flag.
func (c *MemberConfig) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Name == "" {
		add("--name is empty")
	}
	if c.Dir == "" || c.LogFile == "" {
		add("--data-dir is empty")
	}
	if c.ClusterState != ClusterStateNew && c.ClusterState != ClusterStateExisting {
		add("--initial-cluster-state must be %s or %s, got %q", ClusterStateNew, ClusterStateExisting, c.ClusterState)
	}
	if c.ProgressNotifyInterval <= 0 {
		add("progress notify interval must be positive")
	}
	if len(c.ListenClientURLs) == 0 {
		add("--listen-client-urls is empty")
	}
	for _, u := range slices.Concat(c.ListenClientURLs, c.AdvertiseClientURLs, c.ListenPeerURLs, c.AdvertisePeerURLs) {
		if u.Scheme != "https" || u.Port() == "" {
			add("URL %q must be https://HOST:PORT (the member speaks TLS only)", u.String())
		}
	}
	if err := c.checkInitialCluster(); err != nil {
		errs = append(errs, err)
	}
	files := []struct{ what, path string }{{"CA", c.TLS.CAFile}, {"server certificate", c.TLS.ServerCert},
		{"server key", c.TLS.ServerKey}, {"peer certificate", c.TLS.PeerCert}, {"peer key", c.TLS.PeerKey}}
	for _, f := range files {
		if f.path == "" {
			add("the %s file is not set", f.what)
		}
	}
	return errors.Join(errs...)
}

// checkInitialCluster checks that InitialCluster parses and names this
// member with https peer URLs.
func (c *MemberConfig) checkInitialCluster() error {
	peers, err := ParseInitialCluster(c.InitialCluster)
	if err != nil {
		return err
	}
	if _, ok := peers[c.Name]; !ok && c.Name != "" {
		return fmt.Errorf("--initial-cluster %q does not name this member (--name %s)", c.InitialCluster, c.Name)
	}
	return nil
}

// ParseInitialCluster reads an --initial-cluster value: name=URL pairs,
// comma-separated; a name may appear more than once (several peer URLs).
func ParseInitialCluster(s string) (map[string][]url.URL, error) {
	if s == "" {
		return nil, errors.New("--initial-cluster is empty (name=https://host:port,...)")
	}
	out := map[string][]url.URL{}
	for _, pair := range strings.Split(s, ",") {
		name, raw, ok := strings.Cut(pair, "=")
		u, err := url.Parse(raw)
		if !ok || name == "" || err != nil || u.Scheme != "https" || u.Port() == "" {
			return nil, fmt.Errorf("--initial-cluster: %q is not name=https://host:port", pair)
		}
		out[name] = append(out[name], *u)
	}
	return out, nil
}

// Member is a running member of an etcd cluster.
type Member struct {
	etcd      *embed.Etcd
	log       *rotatingLog
	closeOnce sync.Once
}

// StartMember starts the member and waits until it serves requests (it
// has joined the cluster: a member of a new cluster waits for a quorum
// of its peers), or until ctx is done. The data and the log file are
// checked and created as Start does. The caller must Close the Member.
func StartMember(ctx context.Context, cfg *MemberConfig) (*Member, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := prepareFiles(cfg.LogFile); err != nil {
		return nil, err
	}
	if _, err := socketDir(cfg.Dir); err != nil { // creates Dir 0700
		return nil, err
	}
	if err := checkMemberData(cfg.Dir, false); err != nil {
		return nil, &CorruptError{Dir: cfg.Dir, Cause: err}
	}
	// Opening the data dir is bounded (another process may hold its
	// lock); waiting for the peers only by ctx.
	const forever = 100 * 365 * 24 * time.Hour
	log := newRotatingLog(cfg.LogFile)
	ecfg := memberEmbedConfig(cfg)
	ecfg.ZapLoggerBuilder = log.builder()
	e, err := startAndWait(ctx, ecfg, DefaultStartTimeout, forever)
	if err != nil {
		log.Close()
		if errors.Is(err, wal.ErrCRCMismatch) {
			return nil, &CorruptError{Dir: cfg.Dir, Cause: err}
		}
		return nil, err
	}
	return &Member{etcd: e, log: log}, nil
}

// memberEmbedConfig is etcd's configuration of a member of cfg.
func memberEmbedConfig(cfg *MemberConfig) *embed.Config {
	ecfg := embed.NewConfig()
	ecfg.Name = cfg.Name
	ecfg.Dir = cfg.Dir
	ecfg.LogOutputs = []string{cfg.LogFile}
	ecfg.UnsafeNoFsync = cfg.UnsafeNoFsync
	ecfg.WatchProgressNotifyInterval = cfg.ProgressNotifyInterval
	ecfg.MaxRequestBytes = cfg.MaxRequestBytes
	ecfg.InitialCluster = cfg.InitialCluster
	ecfg.ClusterState = cfg.ClusterState
	ecfg.InitialClusterToken = cfg.ClusterToken
	ecfg.ListenClientUrls = cfg.ListenClientURLs
	ecfg.AdvertiseClientUrls = orDefault(cfg.AdvertiseClientURLs, cfg.ListenClientURLs)
	ecfg.ListenPeerUrls = cfg.ListenPeerURLs
	ecfg.AdvertisePeerUrls = orDefault(cfg.AdvertisePeerURLs, cfg.ListenPeerURLs)
	ecfg.ClientTLSInfo = transport.TLSInfo{CertFile: cfg.TLS.ServerCert, KeyFile: cfg.TLS.ServerKey, TrustedCAFile: cfg.TLS.CAFile, ClientCertAuth: true}
	ecfg.PeerTLSInfo = transport.TLSInfo{CertFile: cfg.TLS.PeerCert, KeyFile: cfg.TLS.PeerKey, TrustedCAFile: cfg.TLS.CAFile, ClientCertAuth: true}
	ecfg.EnableGRPCGateway = false
	return ecfg
}

func orDefault(urls, def []url.URL) []url.URL {
	if len(urls) == 0 {
		return def
	}
	return urls
}

// Name returns the member's name.
func (m *Member) Name() string { return m.etcd.Config().Name }

// ClientURLs returns the URLs the member serves clients on (with the
// port the kernel gave a listen URL of port 0).
func (m *Member) ClientURLs() []string {
	var out []string
	for _, l := range m.etcd.Clients {
		out = append(out, "https://"+l.Addr().String())
	}
	return out
}

// PeerAddr returns the address of the member's peer listener.
func (m *Member) PeerAddr() net.Addr { return m.etcd.Peers[0].Listener.Addr() }

// ID returns the member's ID in the cluster.
func (m *Member) ID() uint64 { return uint64(m.etcd.Server.MemberID()) }

// IsLeader reports whether the member is the raft leader now.
func (m *Member) IsLeader() bool { return m.etcd.Server.Leader() == m.etcd.Server.MemberID() }

// Err returns a channel that receives the error of a member that failed
// while running.
func (m *Member) Err() <-chan error { return m.etcd.Err() }

// Close stops the member (a leader hands leadership to another member
// first, as etcd does on a clean stop) and waits for it. It is safe to
// call more than once.
func (m *Member) Close() {
	m.closeOnce.Do(func() {
		m.etcd.Close()
		m.log.Close()
	})
}

// Kill stops the member as a crash of its process would: its raft node
// stops at once, without the leadership transfer of Close, so that a
// leader's followers elect another only once they have missed its
// heartbeats for an election timeout. Its data stays as a crash leaves
// it (fsynced entries). Safe to call more than once, and after Close.
func (m *Member) Kill() {
	m.closeOnce.Do(func() {
		m.etcd.Server.HardStop()
		m.etcd.Close() // the listeners; no leadership to transfer now
		m.log.Close()
	})
}
