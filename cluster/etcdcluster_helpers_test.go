package cluster_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
)

// memberStartTimeout bounds the start of one member (or of a whole new
// cluster, whose members wait for each other).
const memberStartTimeout = 60 * time.Second

// etcdCluster is an etcd cluster of kubesim etcd members on loopback,
// each on two free ports, with the certificates of kubesim etcd certs.
type etcdCluster struct {
	tb      testing.TB
	files   pki.EtcdFiles
	members []*etcdMember
}

// etcdMember is one member: its configuration (kept for restarts) and,
// while it runs, the running member.
type etcdMember struct {
	cfg *embedetcd.MemberConfig
	mu  sync.Mutex
	m   *embedetcd.Member
}

// startEtcdCluster starts a new cluster of n members, all at once (a
// member of a new cluster waits for a quorum), each configured without
// fsync and then by every one of configure, and stops it when the test
// ends.
func startEtcdCluster(tb testing.TB, n int, configure ...func(*embedetcd.MemberConfig)) *etcdCluster {
	tb.Helper()
	dir := tb.TempDir()
	pcfg := pki.NewConfig(dir)
	pcfg.Dir = filepath.Join(dir, "pki")
	files, err := pki.CreateEtcdPKI(pcfg)
	if err != nil {
		tb.Fatalf("etcd certificates: %v", err)
	}
	ec := &etcdCluster{tb: tb, files: files}
	var initial []string
	for i := range n {
		name := fmt.Sprintf("m%d", i+1)
		cfg := embedetcd.NewMemberConfig(name, filepath.Join(dir, name))
		cfg.UnsafeNoFsync = true
		cfg.ListenClientURLs = []url.URL{{Scheme: "https", Host: freeAddr(tb)}}
		cfg.ListenPeerURLs = []url.URL{{Scheme: "https", Host: freeAddr(tb)}}
		cfg.TLS = embedetcd.MemberTLS{CAFile: files.CACert, ServerCert: files.ServerCert, ServerKey: files.ServerKey, PeerCert: files.PeerCert, PeerKey: files.PeerKey}
		for _, f := range configure {
			f(cfg)
		}
		initial = append(initial, name+"="+cfg.ListenPeerURLs[0].String())
		ec.members = append(ec.members, &etcdMember{cfg: cfg})
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, m := range ec.members {
		m.cfg.InitialCluster = strings.Join(initial, ",")
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.start()
		}()
	}
	wg.Wait()
	tb.Cleanup(func() {
		for _, m := range ec.members {
			m.stop()
		}
	})
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("start member %s: %v", ec.members[i].cfg.Name, err)
		}
	}
	return ec
}

// freeAddr returns a loopback address with a port free at the time.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (m *etcdMember) start() error {
	ctx, cancel := context.WithTimeout(context.Background(), memberStartTimeout)
	defer cancel()
	em, err := embedetcd.StartMember(ctx, m.cfg)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.m = em
	m.mu.Unlock()
	return nil
}

// stop stops the member if it runs.
func (m *etcdMember) stop() {
	m.mu.Lock()
	em := m.m
	m.m = nil
	m.mu.Unlock()
	if em != nil {
		em.Close()
	}
}

func (m *etcdMember) isLeader() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m != nil && m.m.IsLeader()
}

// leader returns the index of the member that leads now, waiting for
// one to be elected.
func (ec *etcdCluster) leader() int {
	ec.tb.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		for i, m := range ec.members {
			if m.isLeader() {
				return i
			}
		}
		time.Sleep(pollInterval)
	}
	ec.tb.Fatal("no etcd member became leader")
	return -1
}

// restart starts member i again on its data and ports.
func (ec *etcdCluster) restart(i int) {
	ec.tb.Helper()
	if err := ec.members[i].start(); err != nil {
		ec.tb.Fatalf("restart member %s: %v", ec.members[i].cfg.Name, err)
	}
}

func (ec *etcdCluster) endpoints() []string {
	var out []string
	for _, m := range ec.members {
		out = append(out, m.cfg.ListenClientURLs[0].String())
	}
	return out
}

// configure points a cluster's API server at ec, as serve's flags do.
func (ec *etcdCluster) configure(cfg *cluster.Config) {
	cfg.EtcdServers = ec.endpoints()
	cfg.EtcdCAFile, cfg.EtcdCertFile, cfg.EtcdKeyFile = ec.files.CACert, ec.files.ClientCert, ec.files.ClientKey
}

// client returns an etcd client of the whole cluster, with the API
// server's certificate, closed when the test ends.
func (ec *etcdCluster) client() *clientv3.Client {
	ec.tb.Helper()
	tc, err := transport.TLSInfo{CertFile: ec.files.ClientCert, KeyFile: ec.files.ClientKey, TrustedCAFile: ec.files.CACert}.ClientConfig()
	if err != nil {
		ec.tb.Fatal(err)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: ec.endpoints(), TLS: tc, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		ec.tb.Fatal(err)
	}
	ec.tb.Cleanup(func() { c.Close() })
	return c
}
