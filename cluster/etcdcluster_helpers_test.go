package cluster_test

import (
	"context"
	"net"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/pki"
)

// memberStartTimeout bounds the restart of one member.
const memberStartTimeout = 60 * time.Second

// etcdCluster is an etcd cluster of kubesim etcd members on loopback
// (embedetcd.LocalCluster), each on two free ports, with the
// certificates of kubesim etcd certs; its members are numbered from 0 in
// the order of their names (m1, m2, ...).
type etcdCluster struct {
	tb    testing.TB
	lc    *embedetcd.LocalCluster
	files pki.EtcdFiles
	names []string
}

// startEtcdCluster starts a new cluster of n members, all at once (a
// member of a new cluster waits for a quorum), each configured without
// fsync and then by every one of configure, and stops it when the test
// ends.
func startEtcdCluster(tb testing.TB, n int, configure ...func(*embedetcd.MemberConfig)) *etcdCluster {
	tb.Helper()
	lc, dir := etcdtest.StartCluster(tb, n, configure...)
	return &etcdCluster{tb: tb, lc: lc, files: pki.EtcdFilesIn(dir), names: lc.Names()}
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

// stop stops member i, as etcd's clean stop does.
func (ec *etcdCluster) stop(i int) {
	ec.tb.Helper()
	if err := ec.lc.Stop(ec.names[i]); err != nil {
		ec.tb.Fatal(err)
	}
}

// leader returns the index of the member that leads now, waiting for
// one to be elected.
func (ec *etcdCluster) leader() int {
	ec.tb.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		if l := ec.lc.Leader(); l != "" {
			for i, n := range ec.names {
				if n == l {
					return i
				}
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
	ctx, cancel := context.WithTimeout(context.Background(), memberStartTimeout)
	defer cancel()
	if err := ec.lc.Restart(ctx, ec.names[i]); err != nil {
		ec.tb.Fatalf("restart member %s: %v", ec.names[i], err)
	}
}

func (ec *etcdCluster) endpoints() []string { return ec.lc.Endpoints() }

// configure points a cluster's API server at ec, as serve's flags do.
func (ec *etcdCluster) configure(cfg *cluster.Config) {
	cfg.EtcdServers = ec.endpoints()
	cfg.EtcdCAFile, cfg.EtcdCertFile, cfg.EtcdKeyFile = ec.files.CACert, ec.files.ClientCert, ec.files.ClientKey
}

// client returns an etcd client of the whole cluster, with the API
// server's certificate, closed when the test ends.
func (ec *etcdCluster) client() *clientv3.Client {
	ec.tb.Helper()
	c, err := ec.lc.Client(5 * time.Second)
	if err != nil {
		ec.tb.Fatal(err)
	}
	ec.tb.Cleanup(func() { c.Close() })
	return c
}
