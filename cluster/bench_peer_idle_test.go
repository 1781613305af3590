package cluster_test

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// idleWindow is how long BenchmarkIdleNodesVsPeer measures each side,
// after idleSettle for the nodes' registration traffic to end.
const (
	idleWindow = 60 * time.Second
	idleSettle = 30 * time.Second
)

// BenchmarkIdleNodesVsPeer is P7's idle nodes beside the real control
// plane: what 1,000 idle nodes at upstream's heartbeat periods (a Lease
// of 40 s renewed every 10 s, the Node's status checked every 10 s and
// reported every 5 min) cost kubesim and the peer (kube-apiserver,
// kube-scheduler and kube-controller-manager on etcd, JSON storage, fsync
// on, both writing an audit log), with the same kubelets on both sides:
// kubesim's, 100 as upstream's and 900 hollow sharing one connection and
// informer (startPeerKubelets starts them as kubesim's cluster does).
// The sides run one after the other, the peer first: its kubelets are
// stopped before kubesim starts, its processes stay, idle. Each side is
// measured over idleWindow once its nodes are all Ready and idleSettle
// has passed. It reports:
//
//	kubesim-cores      this process's CPU (everything) ÷ the window
//	peer-cores         the peer's four processes' and this process's
//	                   (its kubelets) CPU ÷ the window
//	kubesim/peer-cores the two divided
//	<side>-etcd-revisions/s  what the heartbeats write
//
// Run it with -benchtime 1x.
func BenchmarkIdleNodesVsPeer(b *testing.B) {
	b.Run("nodes=1000", func(b *testing.B) {
		if b.N != 1 {
			b.Skip("one window per side: -benchtime 1x")
		}
		const nodes = 1000
		inst := findPeer(b)
		run, stop := startPeerCluster(b, inst, nodes, peerQPSKubesim)
		waitNodesReady(b, newBenchClients(b, run.kubeconfig, 1)[0], nodes)
		peerCores, peerRevs := idleCost(b, peerEtcdClient(b, run.etcd), run.pids)
		stop()

		c, _, _ := startBenchCluster(b, nodes, configureLikeThePeer)
		kubesimCores, kubesimRevs := idleCost(b, c.EtcdClient(), nil)
		b.ReportMetric(kubesimCores, "kubesim-cores")
		b.ReportMetric(peerCores, "peer-cores")
		b.ReportMetric(kubesimCores/peerCores, "kubesim/peer-cores")
		b.ReportMetric(kubesimRevs, "kubesim-etcd-revisions/s")
		b.ReportMetric(peerRevs, "peer-etcd-revisions/s")
	})
}

// idleCost waits idleSettle, then returns the cores this process and
// pids used over idleWindow and the etcd revisions written a second.
func idleCost(b *testing.B, etcd *clientv3.Client, pids []int) (cores, revisionsPerSec float64) {
	time.Sleep(idleSettle)
	cpu0, rev0 := processCPU(b)+pidsCPU(b, pids), etcdClientRevision(b, etcd)
	time.Sleep(idleWindow)
	cpu1, rev1 := processCPU(b)+pidsCPU(b, pids), etcdClientRevision(b, etcd)
	return (cpu1 - cpu0).Seconds() / idleWindow.Seconds(), float64(rev1-rev0) / idleWindow.Seconds()
}
