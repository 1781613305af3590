package cluster

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
)

// HAConfig is the highly available control plane StartHA forms on
// loopback in this process, the topology kubeadm's "stacked" HA
// clusters have, but each piece here a part of one process rather than
// a machine: an etcd cluster, several API servers on it, and (by the
// cluster's leader election) several instances of the scheduler.
type HAConfig struct {
	// EtcdMembers is the etcd cluster's size (3 tolerates one failure).
	EtcdMembers int
	// APIServers is how many API servers run on it: the cluster's own on
	// Config's address and port, then --apiserver-only ones on the next
	// loopback addresses (127.0.0.2, ...) with the same port, since the
	// kubernetes Endpoints have one port for every address.
	APIServers int
	// Schedulers is how many scheduler instances run (when Config's
	// Scheduler is set), electing a leader: DefaultSchedulerInstance,
	// which holds the Lease before the others (kubesim-scheduler-2, ...)
	// start. Like every component of the
	// cluster, they reach the API through the first API server, as a
	// kubeadm control-plane node's scheduler reaches its own node's.
	Schedulers int
}

// DefaultHAConfig is three etcd members, two API servers and two
// schedulers.
var DefaultHAConfig = HAConfig{EtcdMembers: 3, APIServers: 2, Schedulers: 2}

// HA is a running HAConfig. Its methods are safe for concurrent use.
type HA struct {
	// Etcd is the etcd cluster.
	Etcd *embedetcd.LocalCluster
	// PKIDir holds the etcd cluster's certificates.
	PKIDir string

	etcdClient *clientv3.Client
	tempDir    string // the data dir StartHA made, removed by close
	mu         sync.Mutex
	servers    []*Cluster // [0] is the cluster StartHA returned
	urls       []string
}

// clusterHA holds the HA topology of each cluster StartHA made. (A
// field of Cluster would do; this keeps the topology in its own file.)
var clusterHA struct {
	sync.Mutex
	m map[*Cluster]*HA
}

// HAOf returns the topology c is part of, or nil for a cluster Start
// made on its own.
func HAOf(c *Cluster) *HA {
	clusterHA.Lock()
	defer clusterHA.Unlock()
	return clusterHA.m[c]
}

// StartHA forms ha: it starts a new etcd cluster (its members' data,
// removed first, and certificates under cfg.DataDir, or under a
// temporary directory that Close removes), starts the cluster of cfg on
// it (Start, cfg.HA ignored), then the other API servers and scheduler
// instances. Closing the returned cluster stops all of it. cfg is not
// changed.
func StartHA(ctx context.Context, cfg *Config, ha HAConfig) (_ *Cluster, err error) {
	if ha.EtcdMembers < 1 || ha.APIServers < 1 {
		return nil, fmt.Errorf("cluster: an HA topology needs etcd members and API servers (got %d and %d)", ha.EtcdMembers, ha.APIServers)
	}
	cfg = cfg.copyWithoutHA()
	h := &HA{}
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	if cfg.DataDir == "" {
		if cfg.DataDir, err = os.MkdirTemp("", "kubesim-ha-"); err != nil {
			return nil, fmt.Errorf("cluster: data dir: %w", err)
		}
		h.tempDir = cfg.DataDir
	}
	if err := h.startEtcd(ctx, cfg, ha.EtcdMembers); err != nil {
		return nil, err
	}
	cfg.EtcdServers = h.Etcd.Endpoints()
	files := h.Etcd.Files()
	cfg.EtcdCAFile, cfg.EtcdCertFile, cfg.EtcdKeyFile = files.CAFile, files.ClientCert, files.ClientKey
	cfg.APIServerName = apiServerName(1, cfg.BindAddress)
	cfg.podStages = apiserver.NewPodStages()
	main, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	h.servers, h.urls = []*Cluster{main}, []string{main.URL}
	clusterHA.Lock()
	if clusterHA.m == nil {
		clusterHA.m = map[*Cluster]*HA{}
	}
	clusterHA.m[main] = h
	clusterHA.Unlock()
	if err := h.startOthers(ctx, cfg, main, ha); err != nil {
		main.Close() // closes h too
		return nil, err
	}
	return main, nil
}

// startOthers starts the API servers and scheduler instances after
// main's own.
func (h *HA) startOthers(ctx context.Context, cfg *Config, main *Cluster, ha HAConfig) error {
	for i := 2; i <= ha.APIServers; i++ {
		if err := h.startAPIServer(ctx, cfg, main, i); err != nil {
			return err
		}
	}
	if !cfg.Scheduler || ha.Schedulers < 2 {
		return nil
	}
	// The first instance leads before the others start, so that a
	// lesson knows who holds the Lease.
	if err := waitSchedulerLeader(ctx, main, cfg.ReadyTimeout); err != nil {
		return err
	}
	for i := 2; i <= ha.Schedulers; i++ {
		if err := main.StartSchedulerInstance(fmt.Sprintf("kubesim-scheduler-%d", i)); err != nil {
			return err
		}
	}
	return nil
}

// waitSchedulerLeader waits until an instance holds the scheduler's
// Lease, at most timeout.
func waitSchedulerLeader(ctx context.Context, c *Cluster, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		if holder, err := c.SchedulerLeader(ctx); err == nil && holder != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: no scheduler instance took the Lease %s within %s", SchedulerLease, timeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startEtcd makes the etcd certificates and starts a new cluster of n
// members (removing the members' data of an earlier start: it knows
// other ports).
func (h *HA) startEtcd(ctx context.Context, cfg *Config, n int) error {
	h.PKIDir = filepath.Join(cfg.DataDir, "etcd-pki")
	membersDir := filepath.Join(cfg.DataDir, "etcd-members")
	if err := os.RemoveAll(membersDir); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	pcfg := pki.NewConfig("")
	pcfg.Dir = h.PKIDir
	files, err := pki.CreateEtcdPKI(pcfg)
	if err != nil {
		return err
	}
	noFsync := cfg.UnsafeNoFsync
	h.Etcd, err = embedetcd.StartLocalCluster(ctx, membersDir, n, embedetcd.LocalClusterFilesOf(files),
		func(m *embedetcd.MemberConfig) { m.UnsafeNoFsync = noFsync })
	if err != nil {
		return err
	}
	if h.etcdClient, err = h.Etcd.Client(5 * time.Second); err != nil {
		h.Etcd.Close()
		return err
	}
	return nil
}

// startAPIServer starts API server i (2, 3, ...): the API server alone,
// on the (i)th loopback address and main's port, on the same etcd, with
// main's certificates, recorder and gate.
func (h *HA) startAPIServer(ctx context.Context, cfg *Config, main *Cluster, i int) error {
	u, err := url.Parse(main.URL)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return err
	}
	ip := net.ParseIP(cfg.BindAddress).To4()
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("cluster: an HA topology listens on loopback addresses (got %s)", cfg.BindAddress)
	}
	next := net.IPv4(ip[0], ip[1], ip[2], ip[3]+byte(i-1))
	scfg := NewConfig().APIOnly()
	scfg.DataDir = filepath.Join(cfg.DataDir, "apiserver-"+strconv.Itoa(i))
	scfg.BindAddress, scfg.Port = next.String(), port
	scfg.EtcdServers, scfg.EtcdCAFile, scfg.EtcdCertFile, scfg.EtcdKeyFile = cfg.EtcdServers, cfg.EtcdCAFile, cfg.EtcdCertFile, cfg.EtcdKeyFile
	scfg.Recorder, scfg.Gate, scfg.Speed = main.Recorder, main.Gate, cfg.Speed
	scfg.APIServerName, scfg.podStages = apiServerName(i, scfg.BindAddress), cfg.podStages
	scfg.EtcdCompactionInterval, scfg.StorageMediaType = cfg.EtcdCompactionInterval, cfg.StorageMediaType
	// One CA, service account key and token file (serve --pki-dir), as
	// kubeadm copies them to every control-plane node; each server's own
	// serving certificate names its address.
	scfg.PKIDir, scfg.APIServerOnly = main.Authority.Dir(), true
	s, err := Start(ctx, scfg)
	if err != nil {
		return fmt.Errorf("cluster: API server %d: %w", i, err)
	}
	h.mu.Lock()
	h.servers = append(h.servers, s)
	h.urls = append(h.urls, s.URL)
	h.mu.Unlock()
	return nil
}

// apiServerName is how the flow events of API server i name it.
func apiServerName(i int, address string) string {
	return fmt.Sprintf("API server %d (%s)", i, address)
}

// APIServerURLs lists the API servers' URLs, the cluster's own first,
// stopped ones too.
func (h *HA) APIServerURLs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.urls...)
}

// APIServer returns API server i (1: the cluster's own), or nil once it
// was stopped.
func (h *HA) APIServer(i int) *Cluster {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i < 1 || i > len(h.servers) {
		return nil
	}
	return h.servers[i-1]
}

// StopAPIServer stops API server i (2, 3, ...; the cluster's own stops
// with the cluster), as a graceful shutdown of its process does.
func (h *HA) StopAPIServer(i int) error { return h.haltAPIServer(i, false) }

// KillAPIServer stops API server i as SIGKILL stops its process: its
// pre-shutdown hooks do not run, so its address stays in the kubernetes
// Endpoints until its master lease (15 s) expires and another server
// reconciles (every 10 s); its connections are cut.
func (h *HA) KillAPIServer(i int) error { return h.haltAPIServer(i, true) }

func (h *HA) haltAPIServer(i int, crash bool) error {
	h.mu.Lock()
	if i < 2 || i > len(h.servers) || h.servers[i-1] == nil {
		h.mu.Unlock()
		return fmt.Errorf("cluster: no running API server %d to stop (API server 1 is the cluster's own)", i)
	}
	s := h.servers[i-1]
	h.servers[i-1] = nil
	h.mu.Unlock()
	if crash {
		s.crashAPIServer()
	}
	return s.Close()
}

// EtcdStatus lists the etcd members as kubesim etcd members does.
func (h *HA) EtcdStatus(ctx context.Context) ([]embedetcd.MemberStatus, error) {
	return embedetcd.ClusterStatus(ctx, h.etcdClient, 2*time.Second)
}

// closeHA stops the topology main is part of: the other API servers,
// then the etcd members. Cluster.Close calls it once main's own API
// server has stopped.
func closeHA(main *Cluster) {
	clusterHA.Lock()
	h := clusterHA.m[main]
	delete(clusterHA.m, main)
	clusterHA.Unlock()
	if h != nil {
		h.close()
	}
}

func (h *HA) close() {
	h.mu.Lock()
	servers := h.servers
	h.servers = nil
	h.mu.Unlock()
	for _, s := range servers[min(1, len(servers)):] {
		if s != nil {
			_ = s.Close()
		}
	}
	if h.etcdClient != nil {
		_ = h.etcdClient.Close()
	}
	if h.Etcd != nil {
		h.Etcd.Close()
	}
	if h.tempDir != "" {
		_ = os.RemoveAll(h.tempDir)
	}
}

// copyWithoutHA is a shallow copy of c for the cluster of a topology
// (Start of it must not form another).
func (c *Config) copyWithoutHA() *Config {
	cp := *c
	cp.HA = nil
	return &cp
}
