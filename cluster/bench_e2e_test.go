package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
)

// BenchmarkPodToRunning measures the whole flow: pods created through the
// API (16 clients) until a watch has seen every one Running, on 100 nodes
// with no simulated delays (speed 0) — the API server, etcd, the scheduler
// and the kubelets at work together. The watch is a client-go informer
// (podsRunning): when the API server ends its watch (the watch cache
// drops a reader that fell behind, as kube-apiserver does), it watches
// again from the last resourceVersion it saw, or lists again after 410
// Gone, as every client-go informer does, and the count goes on.
//
// Beside the pods, in the same run and taking turns with them, two
// baselines on the same etcd member from 16 clients as well: raw etcd
// puts of a stored pod's bytes, and the same bytes through a bare HTTPS
// relay to etcd (BenchmarkHTTPSRelay's: TLS, HTTP/2, one put, nothing
// else). b.N is split into rounds (splitRounds); each round runs b.N's
// share of pods, then as many raw puts, then as many relayed puts, the
// order reversed every other round, so that this shared machine's load
// and the database's growth fall on all three alike. After each pods
// round, outside any side's time, it waits until the requests about
// those pods (their events, written after they are Running) have
// stopped, so that no side runs in the wake of the pods before it. Fsync
// is off. A warm-up of each side (32 pods Running, 32 puts, 32 relayed
// puts) opens every client's connection outside the measured time.
//
// It reports, the rates summed over the rounds:
//
//	ns/op             wall time per pod (the pods' rounds only)
//	pods-running/s    pods a second, from a round's first create to the
//	                  watch seeing its last pod Running
//	etcd-puts/s       raw puts a second
//	e2e/etcd-ratio    pods-running/s ÷ etcd-puts/s: what a pod's whole
//	                  way to Running costs in raw puts' time, side by
//	                  side (it does not grow when a pod writes more)
//	relay-creates/s   relayed puts a second
//	e2e/relay-ratio   pods-running/s ÷ relay-creates/s
//	rewatches/op      watches the informer opened again per pod (0 unless
//	                  the server ended its watch); relists/op its lists
//
// It also reports what the create → Running of one pod costs the API
// server and etcd, counted from the audit log and an etcd watch between
// the first create and the moment the pods' own traffic (creates,
// bindings, status patches, events) has stopped for a second:
//
//	api-requests/pod  requests received about resources, but not those
//	                  about leases and nodes (the heartbeats, which grow
//	                  with time, not pods: see BenchmarkIdleNodes), nor
//	                  discovery's
//	etcd-writes/pod   etcd revisions written, leases and nodes left out too,
//	                  and the baselines' puts (keys under /bench/)
//	cpu-ms/pod        CPU time of the whole process (server, etcd, scheduler,
//	                  controllers, kubelets, and the benchmark's 16 clients)
//	                  in the pods' rounds, per pod
//	alloc-KB/pod      what the whole process allocated on the heap in the
//	                  pods' rounds, per pod (what its garbage collector
//	                  then has to reclaim)
//
// The breakdown by client and request is logged (go test -v).
func BenchmarkPodToRunning(b *testing.B) {
	c, admin, cfg := startBenchCluster(b, 100, nil)
	p := newPodToRunning(b, c, admin, cfg.DataDir)
	cost := startPodCost(b, c, cfg.DataDir)
	b.ResetTimer()
	pods, raw, relayed := p.rounds(b)
	b.StopTimer()
	requests, writes := cost.finish(b)
	n := float64(b.N)
	podRate, rawRate, relayRate := n/pods.wall.Seconds(), n/raw.wall.Seconds(), n/relayed.wall.Seconds()
	b.ReportMetric(float64(pods.wall.Nanoseconds())/n, "ns/op")
	b.ReportMetric(podRate, "pods-running/s")
	b.ReportMetric(rawRate, "etcd-puts/s")
	b.ReportMetric(podRate/rawRate, "e2e/etcd-ratio")
	b.ReportMetric(relayRate, "relay-creates/s")
	b.ReportMetric(podRate/relayRate, "e2e/relay-ratio")
	b.ReportMetric(float64(p.watch.rewatches())/n, "rewatches/op")
	b.ReportMetric(float64(p.watch.relists())/n, "relists/op")
	b.ReportMetric(float64(requests)/n, "api-requests/pod")
	b.ReportMetric(float64(writes)/n, "etcd-writes/pod")
	b.ReportMetric(float64(pods.cpu.Microseconds())/1000/n, "cpu-ms/pod")
	b.ReportMetric(float64(pods.alloc)/1024/n, "alloc-KB/pod")
	b.Logf("watch: %d re-watches, %d re-lists", p.watch.rewatches(), p.watch.relists())
}

// podToRunning is BenchmarkPodToRunning's three sides: pods through the
// whole system, raw etcd puts and relayed puts of a stored pod's bytes.
type podToRunning struct {
	c       *cluster.Cluster
	dataDir string // c's, with its audit log
	clients []kubernetes.Interface
	watch   *podsRunning
	etcd    *clientv3.Client
	relay   *relay
	value   string // a stored pod, Running
	seq     atomic.Int64
	created int // pods created so far
}

// benchKeyPrefix is where the baselines put their keys, outside
// /registry/: no API server reads them, and podCost leaves them out.
const benchKeyPrefix = "/bench/"

// podToRunningTimeout bounds the wait for one round's pods to be seen
// Running.
const podToRunningTimeout = 5 * time.Minute

// newPodToRunning starts the sides' clients and the pods' watch on c and
// warms every side up, then waits until the warm-up pods' requests (the
// events about them) have stopped, so that they are not counted as the
// measured pods' (dataDir is c's, with its audit log).
func newPodToRunning(b *testing.B, c *cluster.Cluster, admin kubernetes.Interface, dataDir string) *podToRunning {
	const clients, warm = 16, 32
	p := &podToRunning{
		c:       c,
		dataDir: dataDir,
		clients: newBenchClients(b, c.Kubeconfig, clients),
		watch:   watchPodsRunning(b, admin, metav1.NamespaceDefault, nil),
		etcd:    c.Etcd().Client(),
	}
	p.relay = startRelay(b, p.etcd, benchKeyPrefix+"relay", clients)
	warmCost := startPodCost(b, c, dataDir)
	p.podsRound(b, warm)
	resp, err := p.etcd.Get(context.Background(), "/registry/pods/default/"+e2ePodName(1))
	if err != nil || len(resp.Kvs) != 1 {
		b.Fatalf("read a stored pod: %v", err)
	}
	p.value = string(resp.Kvs[0].Value)
	p.rawRound(b, warm)
	p.relayRound(b, warm)
	warmCost.quiet(b)
	return p
}

// settle waits, outside any side's time, until the requests that follow
// a pods round (the events about its pods, written after they are
// Running) have stopped, so that the next round starts on a quiet
// system as the first did.
func (p *podToRunning) settle(b *testing.B) { startPodCost(b, p.c, p.dataDir).quiet(b) }

// rounds runs b.N operations of each side in alternating rounds, each
// pods round followed by settle, and returns what each side took.
func (p *podToRunning) rounds(b *testing.B) (pods, raw, relayed sideCost) {
	sides := []struct {
		run  func(*testing.B, int) time.Duration
		cost *sideCost
	}{{p.podsRound, &pods}, {p.rawRound, &raw}, {p.relayRound, &relayed}}
	for i, n := range splitRounds(b.N) {
		for j := range sides {
			s := sides[j]
			if i%2 == 1 {
				s = sides[len(sides)-1-j]
			}
			cpu0, alloc0 := processCPU(b), allocatedBytes()
			s.cost.wall += s.run(b, n)
			s.cost.cpu += processCPU(b) - cpu0
			s.cost.alloc += allocatedBytes() - alloc0
			if s.cost == &pods {
				p.settle(b)
			}
		}
	}
	return pods, raw, relayed
}

// e2ePodName is the name of the end-to-end benchmarks' i-th pod.
func e2ePodName(i int64) string { return fmt.Sprintf("e2e-%09d", i) }

// podsRound creates n pods and waits until the watch has seen them all
// Running; it returns how long that took.
func (p *podToRunning) podsRound(b *testing.B, n int) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), podToRunningTimeout)
	defer cancel()
	start := time.Now()
	if _, err := runConcurrent(n, len(p.clients), func(client int) error {
		_, err := p.clients[client].CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, e2ePod(e2ePodName(p.seq.Add(1))), metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	p.created += n
	if err := p.watch.waitFor(ctx, p.created); err != nil {
		b.Fatalf("pods Running: %v", err)
	}
	return time.Since(start)
}

// rawRound puts n values of the stored pod's bytes straight to etcd.
func (p *podToRunning) rawRound(b *testing.B, n int) time.Duration {
	d, err := runConcurrent(n, len(p.clients), func(int) error {
		_, err := p.etcd.Put(context.Background(), fmt.Sprintf("%sraw-%09d", benchKeyPrefix, p.seq.Add(1)), p.value)
		return err
	})
	if err != nil {
		b.Fatalf("raw put: %v", err)
	}
	return d
}

// relayRound puts n values of the stored pod's bytes through the relay.
func (p *podToRunning) relayRound(b *testing.B, n int) time.Duration {
	value := []byte(p.value)
	d, err := runConcurrent(n, len(p.clients), func(client int) error {
		return p.relay.post(client, fmt.Sprintf("relay-%09d", p.seq.Add(1)), value)
	})
	if err != nil {
		b.Fatalf("relayed put: %v", err)
	}
	return d
}

// podCost counts what pods cost between startPodCost and finish: the
// requests of the audit log (<data-dir>/logs/audit.log) and the etcd
// revisions, without those about leases and nodes.
type podCost struct {
	etcd      *clientv3.Client
	auditPath string
	offset    int64 // of the audit log at the start
	end       int64 // of the audit log at the end of a window (0: none)
	rev       int64 // etcd's revision at the start
}

func startPodCost(b *testing.B, c *cluster.Cluster, dataDir string) *podCost {
	return startPodCostOf(b, c.EtcdClient(), filepath.Join(dataDir, "logs", "audit.log"))
}

// startPodCostOf is startPodCost for any API server: the audit log it
// writes (kube-apiserver's --audit-log-path, level Metadata) and its etcd.
func startPodCostOf(b *testing.B, etcd *clientv3.Client, auditPath string) *podCost {
	p := &podCost{etcd: etcd, auditPath: auditPath}
	fi, err := os.Stat(p.auditPath)
	if err != nil {
		b.Fatalf("audit log: %v", err)
	}
	p.offset = fi.Size()
	p.rev = etcdClientRevision(b, etcd)
	return p
}

// endWindow ends the requests counted at the audit log's present end,
// so that they are those of the same window as the etcd writes counted
// up to the revision read just before. A request still being written
// (half a line) is left out.
func (p *podCost) endWindow(b *testing.B) {
	fi, err := os.Stat(p.auditPath)
	if err != nil {
		b.Fatalf("audit log: %v", err)
	}
	p.end = fi.Size()
}

// heartbeatResource reports whether an API resource or an etcd key's
// second element is the nodes' heartbeat traffic: leases, nodes (stored
// under nodes, or minions as kube-apiserver does).
func heartbeatResource(r string) bool { return r == "leases" || r == "nodes" || r == "minions" }

// finish waits until the pods' requests have stopped (quiet), then
// returns how many requests and etcd writes there were, and logs their
// breakdown.
func (p *podCost) finish(b *testing.B) (requests, writes int) {
	byKind, requests := p.quiet(b)
	byWrite, writes := p.etcdWrites(b, etcdClientRevision(b, p.etcd), false)
	b.Logf("API requests (%d): %s", requests, sortedCounts(byKind))
	b.Logf("etcd writes (%d): %s", writes, sortedCounts(byWrite))
	return requests, writes
}

// quiet waits until the requests counted since the start (requests,
// heartbeats left out) have stopped for a second, at most a minute, and
// returns them.
func (p *podCost) quiet(b *testing.B) (byKind map[string]int, requests int) {
	last, still := -1, 0
	for deadline := time.Now().Add(time.Minute); still < 5 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		byKind, requests = p.requests(b, false)
		if requests == last {
			still++
		} else {
			last, still = requests, 0
		}
	}
	return byKind, requests
}

// requests counts the audit log's RequestReceived events since the start
// by client (kubelet for any node), verb and resource: only the
// heartbeats', or all but theirs.
func (p *podCost) requests(b *testing.B, heartbeats bool) (map[string]int, int) {
	f, err := os.Open(p.auditPath)
	if err != nil {
		b.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	if _, err := f.Seek(p.offset, io.SeekStart); err != nil {
		b.Fatalf("audit log: %v", err)
	}
	counts, total := map[string]int{}, 0
	var log io.Reader = f
	if p.end > 0 {
		log = io.LimitReader(f, p.end-p.offset)
	}
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Stage, Verb, RequestURI string
			User                    struct{ Username string }
			ImpersonatedUser        *struct{ Username string } // a hollow kubelet's node
			ObjectRef               *struct{ Resource, Subresource string }
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Stage != "RequestReceived" {
			continue
		}
		resource := "-"
		if ev.ObjectRef != nil {
			resource = ev.ObjectRef.Resource
			if ev.ObjectRef.Subresource != "" {
				resource += "/" + ev.ObjectRef.Subresource
			}
		}
		if heartbeatResource(strings.SplitN(resource, "/", 2)[0]) != heartbeats {
			continue
		}
		user := ev.User.Username
		if ev.ImpersonatedUser != nil {
			user = ev.ImpersonatedUser.Username
		}
		if strings.HasPrefix(user, kubelet.UserPrefix) {
			user = "kubelet"
		}
		if ev.ObjectRef == nil { // discovery and other non-resource paths: not about pods
			counts["(not counted) "+user+" "+ev.Verb+" "+ev.RequestURI]++
			continue
		}
		counts[user+" "+ev.Verb+" "+resource]++
		total++
	}
	return counts, total
}

// etcdWrites counts the revisions after the start up to rev by the
// resource of their key: only the heartbeats', or all but theirs; the
// benchmarks' own puts (keys under benchKeyPrefix) never.
func (p *podCost) etcdWrites(b *testing.B, rev int64, heartbeats bool) (map[string]int, int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	counts, total := map[string]int{}, 0
	seen := p.rev
	wc := p.etcd.Watch(ctx, "/", clientv3.WithPrefix(), clientv3.WithRev(p.rev+1))
	for seen < rev {
		resp, ok := <-wc
		if !ok || resp.Err() != nil {
			b.Fatalf("etcd watch ended at revision %d of %d", seen, rev)
		}
		for _, ev := range resp.Events {
			if ev.Kv.ModRevision > rev || ev.Kv.ModRevision == seen {
				continue
			}
			seen = ev.Kv.ModRevision
			if strings.HasPrefix(string(ev.Kv.Key), benchKeyPrefix) {
				continue // a baseline's put
			}
			parts := strings.SplitN(string(ev.Kv.Key), "/", 4)
			resource := "-"
			if len(parts) > 2 {
				resource = parts[2]
			}
			if heartbeatResource(resource) != heartbeats {
				continue
			}
			counts[resource]++
			total++
		}
	}
	return counts, total
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "\n  %6d  %s", m[k], k)
	}
	return sb.String()
}

// BenchmarkIdleNodes measures what 100 idle nodes cost (and, in the
// sub-benchmarks named nodes=1000, 1,000: 100 kubelets as upstream's and
// 900 hollow ones, see cluster.RealKubelets): no pods, only
// the kubelets' heartbeats (Lease renewals, node status checks and
// reports) and the node lifecycle controller watching them. Each op is a
// window of the kubelet's nodeStatusReportFrequency (5 min at speed=1,
// twice 15 s at speed=0, where the node health periods are divided by
// 20), so that every node's unchanged status is due in it; run it with
// -benchtime=1x. Nodes started together report together, each on the
// first 10 s status check after its report is due, so the reports of a
// window may fall just after it: then neither the requests nor the
// etcd writes counted (both up to the window's end) hold them. It
// reports, per second of the window:
//
//	etcd-revisions/s   every etcd write (the heartbeats' and the others')
//	lease-writes/s     etcd writes of Leases
//	node-writes/s      etcd writes of Nodes (status reports)
//	api-requests/s     API requests about leases and nodes
//	cores              CPU time of the whole process (control plane,
//	                   kubelets, this benchmark) per second
func BenchmarkIdleNodes(b *testing.B) {
	b.Run("speed=0", func(b *testing.B) { benchIdleNodes(b, 100, 0, 30*time.Second) })
	b.Run("speed=1", func(b *testing.B) { benchIdleNodes(b, 100, 1, 5*time.Minute) })
	b.Run("speed=0,nodes=1000", func(b *testing.B) { benchIdleNodes(b, 1000, 0, 30*time.Second) })
	b.Run("speed=1,nodes=1000", func(b *testing.B) { benchIdleNodes(b, 1000, 1, 5*time.Minute) })
}

func benchIdleNodes(b *testing.B, n int, speed float64, window time.Duration) {
	c, _, cfg := startBenchCluster(b, n, func(cfg *cluster.Config) { cfg.Speed = speed })
	b.ResetTimer()
	var revs, leases, nodes, requests int
	var cpu time.Duration
	for range b.N {
		cost := startPodCost(b, c, cfg.DataDir)
		rev0, cpu0 := cost.rev, processCPU(b)
		time.Sleep(window) // the window measured: nothing to wait for
		rev1 := etcdRevision(b, c)
		cpu += processCPU(b) - cpu0
		cost.endWindow(b)
		writes, _ := cost.etcdWrites(b, rev1, true)
		byKind, n := cost.requests(b, true)
		revs += int(rev1 - rev0)
		leases += writes["leases"]
		nodes += writes["minions"] + writes["nodes"] // upstream's key, kubesim's
		requests += n
		b.Logf("heartbeat API requests (%d): %s", n, sortedCounts(byKind))
	}
	secs := (time.Duration(b.N) * window).Seconds()
	b.ReportMetric(float64(revs)/secs, "etcd-revisions/s")
	b.ReportMetric(float64(leases)/secs, "lease-writes/s")
	b.ReportMetric(float64(nodes)/secs, "node-writes/s")
	b.ReportMetric(float64(requests)/secs, "api-requests/s")
	b.ReportMetric(cpu.Seconds()/secs, "cores")
}

// allocatedBytes is what this process has allocated on the heap so far
// (runtime/metrics, which stops no goroutine to read it).
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
