package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
)

// BenchmarkPodToRunning measures the whole flow: pods created through the
// API (16 clients) until a watch has seen every one Running, on 100 nodes
// with no simulated delays (speed 0) — the API server, etcd, the scheduler
// and the kubelets at work together. Beside it, in the same run and on the
// same etcd member, raw etcd puts of values of a stored pod's size. It
// reports pods/s, puts/s and their ratio. Fsync is off on both sides.
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
//	etcd-writes/pod   etcd revisions written, leases and nodes left out too
//	cpu-ms/pod        CPU time of the whole process (server, etcd, scheduler,
//	                  controllers, kubelets, and the benchmark's 16 clients)
//	                  from the first create to the last pod Running, per pod
//
// The breakdown by client and request is logged (go test -v).
func BenchmarkPodToRunning(b *testing.B) {
	ctx := context.Background()
	c, admin, cfg := startBenchCluster(b, 100, nil)
	clients := newBenchClients(b, c.Kubeconfig, 16)
	var seq atomic.Int64
	value := ""

	cost := startPodCost(b, c, cfg.DataDir)
	b.ResetTimer()
	// Through the whole system.
	w, err := admin.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	running := map[string]bool{}
	allRunning := make(chan struct{})
	var once sync.Once
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted || p.Status.Phase != corev1.PodRunning {
				continue
			}
			running[p.Name] = true
			if len(running) == b.N {
				once.Do(func() { close(allRunning) })
			}
		}
	}()
	start, cpu0 := time.Now(), processCPU(b)
	if _, err := runConcurrent(b.N, 16, func(client int) error {
		name := fmt.Sprintf("e2e-%09d", seq.Add(1))
		_, err := clients[client].CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
		}, metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-allRunning:
	case <-time.After(5 * time.Minute):
		b.Fatalf("only %d of %d pods Running after 5 minutes", len(running), b.N)
	}
	e2e, cpu := time.Since(start), processCPU(b)-cpu0
	w.Stop()
	b.StopTimer()
	requests, writes := cost.finish(b)
	b.StartTimer()

	// Raw etcd puts of the same size, same member.
	resp, err := c.Etcd().Client().Get(ctx, "/registry/pods/default/e2e-000000001")
	if err != nil || len(resp.Kvs) != 1 {
		b.Fatalf("read a stored pod: %v", err)
	}
	value = string(resp.Kvs[0].Value)
	etcd := c.Etcd().Client()
	raw, err := runConcurrent(b.N, 16, func(int) error {
		_, err := etcd.Put(ctx, fmt.Sprintf("/bench/raw-%09d", seq.Add(1)), value)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(e2e.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(b.N)/e2e.Seconds(), "pods-running/s")
	b.ReportMetric(float64(b.N)/raw.Seconds(), "etcd-puts/s")
	b.ReportMetric((float64(b.N)/e2e.Seconds())/(float64(b.N)/raw.Seconds()), "e2e/etcd-ratio")
	b.ReportMetric(float64(requests)/float64(b.N), "api-requests/pod")
	b.ReportMetric(float64(writes)/float64(b.N), "etcd-writes/pod")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/pod")
}

// podCost counts what pods cost between startPodCost and finish: the
// requests of the audit log (<data-dir>/logs/audit.log) and the etcd
// revisions, without those about leases and nodes.
type podCost struct {
	c         *cluster.Cluster
	auditPath string
	offset    int64 // of the audit log at the start
	end       int64 // of the audit log at the end of a window (0: none)
	rev       int64 // etcd's revision at the start
}

func startPodCost(b *testing.B, c *cluster.Cluster, dataDir string) *podCost {
	p := &podCost{c: c, auditPath: filepath.Join(dataDir, "logs", "audit.log")}
	fi, err := os.Stat(p.auditPath)
	if err != nil {
		b.Fatalf("audit log: %v", err)
	}
	p.offset = fi.Size()
	p.rev = etcdRevision(b, c)
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

// finish waits until the pods' requests have stopped for a second (at
// most a minute), then returns how many requests and etcd writes there
// were, and logs their breakdown.
func (p *podCost) finish(b *testing.B) (requests, writes int) {
	var byKind map[string]int
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
	byWrite, writes := p.etcdWrites(b, etcdRevision(b, p.c), false)
	b.Logf("API requests (%d): %s", requests, sortedCounts(byKind))
	b.Logf("etcd writes (%d): %s", writes, sortedCounts(byWrite))
	return requests, writes
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
// resource of their key: only the heartbeats', or all but theirs.
func (p *podCost) etcdWrites(b *testing.B, rev int64, heartbeats bool) (map[string]int, int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	counts, total := map[string]int{}, 0
	seen := p.rev
	wc := p.c.Etcd().Client().Watch(ctx, "/", clientv3.WithPrefix(), clientv3.WithRev(p.rev+1))
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

// processCPU is the CPU time this process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
