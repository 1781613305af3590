package embedetcd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kubesim/kubesim/internal/pki"
)

// LocalClusterFiles are the PEM files a local cluster runs with: the
// members' CA and pairs (as MemberTLS) and a client pair for Client.
type LocalClusterFiles struct {
	MemberTLS
	ClientCert, ClientKey string
}

// LocalClusterFilesOf are the files of an etcd PKI directory (kubesim
// etcd certs): its members' pairs, and the API server's client pair.
func LocalClusterFilesOf(f pki.EtcdFiles) LocalClusterFiles {
	return LocalClusterFiles{MemberTLS: MemberTLSOf(f), ClientCert: f.ClientCert, ClientKey: f.ClientKey}
}

// MemberTLSOf is a member's TLS from an etcd PKI directory's files.
func MemberTLSOf(f pki.EtcdFiles) MemberTLS {
	return MemberTLS{CAFile: f.CACert, ServerCert: f.ServerCert, ServerKey: f.ServerKey, PeerCert: f.PeerCert, PeerKey: f.PeerKey}
}

// LocalCluster is an etcd cluster of several members in this process,
// each a Member on two loopback ports, as `kubesim etcd` runs them in
// separate processes: what a lesson on a highly available control plane
// stops and starts. Its methods are safe for concurrent use.
type LocalCluster struct {
	files   LocalClusterFiles
	mu      sync.Mutex
	cfgs    []*MemberConfig // by member, kept for restarts
	running []*Member       // nil while stopped
}

// StartLocalCluster starts a new cluster of n members named m1..mn, with
// their data in dir/m1.. and the certificates of files; each member's
// configuration is then changed by configure (fsync, say). It returns
// once a quorum serves, or fails (and stops what started) when ctx ends.
func StartLocalCluster(ctx context.Context, dir string, n int, files LocalClusterFiles, configure func(*MemberConfig)) (*LocalCluster, error) {
	lc := &LocalCluster{files: files, running: make([]*Member, n)}
	var initial []string
	for i := range n {
		name := fmt.Sprintf("m%d", i+1)
		cfg := NewMemberConfig(name, filepath.Join(dir, name))
		client, peer, err := twoLoopbackPorts()
		if err != nil {
			return nil, err
		}
		cfg.ListenClientURLs = []url.URL{{Scheme: "https", Host: client}}
		cfg.ListenPeerURLs = []url.URL{{Scheme: "https", Host: peer}}
		cfg.TLS = files.MemberTLS
		if configure != nil {
			configure(cfg)
		}
		initial = append(initial, name+"="+cfg.ListenPeerURLs[0].String())
		lc.cfgs = append(lc.cfgs, cfg)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, cfg := range lc.cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = lc.start(ctx, i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		lc.Close()
		return nil, err
	}
	return lc, nil
}

func (lc *LocalCluster) start(ctx context.Context, i int) error {
	m, err := StartMember(ctx, lc.cfgs[i])
	if err != nil {
		return fmt.Errorf("etcd member %s: %w", lc.cfgs[i].Name, err)
	}
	lc.mu.Lock()
	lc.running[i] = m
	lc.mu.Unlock()
	return nil
}

// Names lists the members' names, m1 first.
func (lc *LocalCluster) Names() []string {
	out := make([]string, len(lc.cfgs))
	for i, c := range lc.cfgs {
		out[i] = c.Name
	}
	return out
}

// Endpoints lists the members' client URLs, stopped ones too.
func (lc *LocalCluster) Endpoints() []string {
	out := make([]string, len(lc.cfgs))
	for i, c := range lc.cfgs {
		out[i] = c.ListenClientURLs[0].String()
	}
	return out
}

// Files returns the certificates the cluster runs with.
func (lc *LocalCluster) Files() LocalClusterFiles { return lc.files }

func (lc *LocalCluster) index(name string) (int, error) {
	for i, c := range lc.cfgs {
		if c.Name == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("etcd: no member %q (members: %s)", name, strings.Join(lc.Names(), ", "))
}

// Leader returns the name of the running member that is raft leader,
// or "" while none is (an election, or no quorum).
func (lc *LocalCluster) Leader() string {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for i, m := range lc.running {
		if m != nil && m.IsLeader() {
			return lc.cfgs[i].Name
		}
	}
	return ""
}

// Running reports whether member name runs.
func (lc *LocalCluster) Running(name string) bool {
	i, err := lc.index(name)
	if err != nil {
		return false
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.running[i] != nil
}

// Stop stops member name cleanly, as etcd stops on SIGTERM: a leader
// first hands its leadership to a follower (Member.Close). Its data
// stays; stopping a stopped member is an error.
func (lc *LocalCluster) Stop(name string) error { return lc.halt(name, (*Member).Close) }

// Kill stops member name as a crash of its process would: no leadership
// transfer (Member.Kill). Its data stays; killing a stopped member is an
// error.
func (lc *LocalCluster) Kill(name string) error { return lc.halt(name, (*Member).Kill) }

func (lc *LocalCluster) halt(name string, how func(*Member)) error {
	i, err := lc.index(name)
	if err != nil {
		return err
	}
	lc.mu.Lock()
	m := lc.running[i]
	lc.running[i] = nil
	lc.mu.Unlock()
	if m == nil {
		return fmt.Errorf("etcd: member %s is not running", name)
	}
	how(m)
	return nil
}

// Restart starts the stopped member name again on its data and ports;
// it returns once the member serves (it has caught up with the leader
// enough to join), or fails when ctx ends.
func (lc *LocalCluster) Restart(ctx context.Context, name string) error {
	i, err := lc.index(name)
	if err != nil {
		return err
	}
	if lc.Running(name) {
		return fmt.Errorf("etcd: member %s is already running", name)
	}
	return lc.start(ctx, i)
}

// Client returns a client of every member, with the client pair of the
// cluster's files; the caller closes it.
func (lc *LocalCluster) Client(dialTimeout time.Duration) (*clientv3.Client, error) {
	return NewTLSClient(lc.Endpoints(), lc.files, dialTimeout)
}

// NewTLSClient returns a client of endpoints that trusts files' CA and
// presents its client pair, logging nowhere; the caller closes it.
func NewTLSClient(endpoints []string, files LocalClusterFiles, dialTimeout time.Duration) (*clientv3.Client, error) {
	tc, err := transport.TLSInfo{CertFile: files.ClientCert, KeyFile: files.ClientKey, TrustedCAFile: files.CAFile}.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("etcd client certificate: %w", err)
	}
	return clientv3.New(clientv3.Config{Endpoints: endpoints, TLS: tc, DialTimeout: dialTimeout, Logger: zap.NewNop()})
}

// Close stops every running member.
func (lc *LocalCluster) Close() {
	lc.mu.Lock()
	running := lc.running
	lc.running = make([]*Member, len(running))
	lc.mu.Unlock()
	for _, m := range running {
		if m != nil {
			m.Close()
		}
	}
}
