package cluster_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/embedetcd"
)

// BenchmarkPodCreate measures, in one process run and against one etcd
// member, how fast pods are created through the API and how fast etcd alone
// stores values of the same size, at 1 and at 16 concurrent clients.
//
// Each sub-benchmark splits its b.N operations into rounds; every round runs
// the same number of API creates and raw etcd puts back to back, the order
// alternating, so that noise from this shared machine and the growth of the
// database fall on both sides alike. It reports:
//
//	api-creates/s   pods created per second through the HTTP API
//	etcd-puts/s     puts per second straight to etcd
//	api/etcd-ratio  the two divided; 1 would mean the API adds nothing
//	ns/op           wall time of one API create (replaces the default, which
//	                would mix both sides)
//
// It runs twice, each time on a fresh member both sides write to: with
// fsync on (fsync=on, how kubesim runs etcd), where both sides mostly wait
// for this machine's disk and etcd batches the writes of concurrent
// clients; and with fsync off (fsync=off), where the baseline is what etcd
// itself costs in CPU, so the ratio is the strict one. A third run
// (etcd=3-members) puts the API server on three kubesim etcd members on
// loopback (TLS, fsync on), the raw puts going to the same cluster over
// TLS too: both sides then wait for a quorum of members to store each
// write. Two more runs (fsync=on/storage=protobuf, fsync=off/storage=protobuf)
// have the API server store protobuf, the raw puts writing the sample
// pod's protobuf value.
//
// The API clients are client-go clientsets built from the cluster's
// kubeconfig (see newBenchClients), not hand-written net/http requests:
// client-go is what the scheduler, the kubelets and kubectl use, so its
// encoding and decoding are part of what a create costs in practice. The
// clients run in this process and share its CPUs with the server and etcd;
// the raw side's in-process etcd client costs next to nothing.
func BenchmarkPodCreate(b *testing.B) {
	for _, fsync := range []bool{true, false} {
		b.Run(fsyncName(fsync), func(b *testing.B) { benchPodCreate(b, fsync, nil, "") })
	}
	// The same against three etcd members on loopback (kubesim etcd),
	// fsync on: the raw puts go to the same cluster through a client of
	// its own, so each side pays raft's round trips between members.
	b.Run("etcd=3-members", func(b *testing.B) { benchPodCreate(b, true, startBenchEtcdCluster(b), "") })
	// The same with the API server storing protobuf (serve
	// --storage-media-type, kube-apiserver's default): the raw puts
	// write the protobuf value of the sample pod. The names keep
	// 'PodCreate/fsync=o./clients=16' selecting the JSON runs only.
	for _, fsync := range []bool{true, false} {
		b.Run(fsyncName(fsync)+"/storage=protobuf", func(b *testing.B) { benchPodCreate(b, fsync, nil, apiserver.StorageMediaTypeProtobuf) })
	}
}

// fsyncName names a sub-benchmark by whether etcd syncs: fsync=on, fsync=off.
func fsyncName(fsync bool) string {
	if fsync {
		return "fsync=on"
	}
	return "fsync=off"
}

// startBenchEtcdCluster starts three members with fsync on.
func startBenchEtcdCluster(b *testing.B) *etcdCluster {
	return startEtcdCluster(b, 3, func(m *embedetcd.MemberConfig) { m.UnsafeNoFsync = false })
}

// benchPodCreate runs the sub-benchmarks on a new cluster: its embedded
// member (fsync says whether it syncs), or ec when not nil; the API
// server stores objects as mediaType ("": the default, JSON).
func benchPodCreate(b *testing.B, fsync bool, ec *etcdCluster, mediaType string) {
	ctx := context.Background()
	c := startAPIOnly(b, fsync, func(cfg *cluster.Config) {
		if mediaType != "" {
			cfg.StorageMediaType = mediaType
		}
		if ec != nil {
			ec.configure(cfg)
		}
	})
	etcd := c.EtcdClient()
	if ec != nil {
		etcd = ec.client()
	}

	// One pod through the API tells what a stored pod looks like: the raw
	// puts write exactly these bytes. Its name is as long as the others'.
	sample := benchName("api", 0)
	warm := newBenchClients(b, c.Kubeconfig, 1)[0]
	// No controller manager runs: make the default ServiceAccount its
	// service-account-controller would, for the ServiceAccount admission
	// plugin to find.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := warm.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		b.Fatalf("create the default service account: %v", err)
	}
	if _, err := warm.CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, benchPod(sample), metav1.CreateOptions{}); err != nil {
		b.Fatalf("create sample pod: %v", err)
	}
	resp, err := etcd.Get(ctx, "/registry/pods/default/"+sample)
	if err != nil || len(resp.Kvs) != 1 {
		b.Fatalf("read sample pod from etcd: %v (%d keys)", err, len(resp.Kvs))
	}
	value := string(resp.Kvs[0].Value)

	var seq atomic.Int64 // names pods and keys, unique across sub-benchmarks
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			cs := newBenchClients(b, c.Kubeconfig, clients)
			api := func(client int) error {
				pod := benchPod(benchName("api", seq.Add(1)))
				_, err := cs[client].CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, pod, metav1.CreateOptions{})
				return err
			}
			raw := func(int) error {
				key := "/registry/pods/default/" + benchName("raw", seq.Add(1))
				_, err := etcd.Put(ctx, key, value)
				return err
			}
			apiSide, rawSide := raceRounds(b, clients, api, raw)
			apiRate := float64(b.N) / apiSide.wall.Seconds()
			rawRate := float64(b.N) / rawSide.wall.Seconds()
			b.ReportMetric(float64(apiSide.wall.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(apiRate, "api-creates/s")
			b.ReportMetric(rawRate, "etcd-puts/s")
			b.ReportMetric(apiRate/rawRate, "api/etcd-ratio")
			b.ReportMetric(float64(len(value)), "value-bytes")
		})
	}
}

// startAPIOnly starts a cluster of the API server alone on its embedded
// etcd member (fsync says whether it syncs), configure changing the
// configuration first, and closes it when the benchmark ends.
func startAPIOnly(b *testing.B, fsync bool, configure func(*cluster.Config)) *cluster.Cluster {
	cfg := cluster.NewConfig().APIOnly()
	cfg.Port = 0
	cfg.DataDir = b.TempDir()
	cfg.UnsafeNoFsync = !fsync
	configure(cfg)
	c, err := cluster.Start(context.Background(), cfg)
	if err != nil {
		b.Fatalf("start cluster: %v", err)
	}
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Errorf("close cluster: %v", err)
		}
	})
	return c
}

// sideCost is what one side of raceRounds took: wall time, and the
// process's CPU time (clients, server and etcd) meanwhile; alloc, where
// a benchmark counts it, the bytes the process allocated meanwhile.
type sideCost struct {
	wall, cpu time.Duration
	alloc     uint64
}

// raceRounds runs b.N operations of each side from the given number of
// goroutines, in alternating rounds (splitRounds; the order alternating,
// so that noise from this shared machine and the growth of the database
// fall on both sides alike) after a warm-up of each outside the measured
// time (every client opens its connection), and returns what each side
// took.
func raceRounds(b *testing.B, clients int, a, z func(client int) error) (aCost, zCost sideCost) {
	for _, op := range []func(int) error{a, z} {
		if _, err := runConcurrent(2*clients, clients, op); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	b.ResetTimer()
	for i, n := range splitRounds(b.N) {
		first := i%2 == 0
		for _, side := range []bool{first, !first} {
			op, total := z, &zCost
			if side {
				op, total = a, &aCost
			}
			cpu0 := processCPU(b)
			d, err := runConcurrent(n, clients, op)
			if err != nil {
				b.Fatalf("round %d: %v", i, err)
			}
			total.wall += d
			total.cpu += processCPU(b) - cpu0
		}
	}
	b.StopTimer()
	return aCost, zCost
}

// benchRounds is how many alternating API/etcd rounds a run is split into.
const benchRounds = 4

// splitRounds splits n operations into at most benchRounds non-empty parts.
func splitRounds(n int) []int {
	k := min(benchRounds, n)
	parts := make([]int, k)
	for i := range parts {
		parts[i] = n / k
		if i < n%k {
			parts[i]++
		}
	}
	return parts
}

// runConcurrent runs op n times from the given number of goroutines, each
// goroutine passing its own index, and returns the wall time it took and
// the first error.
func runConcurrent(n, goroutines int, op func(client int) error) (time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	start := time.Now()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := op(g); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), first
}

// newBenchClients returns n independent clientsets for the cluster described
// by kubeconfig, each with its own connection pool.
func newBenchClients(tb testing.TB, kubeconfig string, n int) []kubernetes.Interface {
	tb.Helper()
	clients := make([]kubernetes.Interface, n)
	for i := range clients {
		rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			tb.Fatalf("load kubeconfig: %v", err)
		}
		rc.QPS = -1 // no client-side rate limit: measure the server
		rc.UserAgent = fmt.Sprintf("kubesim-bench/%d", i)
		// Each client gets a connection of its own, as 16 separate
		// programs would: client-go shares one transport (one HTTP/2
		// connection) between configs with the same TLS settings unless a
		// dialer of its own makes the transport uncacheable.
		rc.Dial = (&net.Dialer{}).DialContext
		cs, err := kubernetes.NewForConfig(rc)
		if err != nil {
			tb.Fatalf("clientset: %v", err)
		}
		clients[i] = cs
	}
	return clients
}

// benchName returns the name of the i-th pod or key of a side ("api",
// "raw"); all names have the same length.
func benchName(side string, i int64) string {
	return fmt.Sprintf("bench-%s-%09d", side, i)
}

// benchPod is a small, ordinary pod: one container with a port, and labels.
func benchPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{"app": "bench", "tier": "web"},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "web",
				Image: "nginx:1.27",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
			}},
		},
	}
}
