package benchtable

import "strings"

// Row is one line of the table: a figure of one benchmark's runs.
type Row struct {
	// ID is the name of the row ("P1").
	ID string
	// What says what is measured, in a few words.
	What string
	// Bench is the benchmark's full name, as Result.Name gives it.
	Bench string
	// Figure computes the row's value from one run's metrics; ok is false
	// when a metric it needs is missing.
	Figure func(m map[string]float64) (v float64, ok bool)
	// Unit names the figure's unit ("ratio", "ms", "pods/s").
	Unit string
	// Goal is the goal as the issue states it ("≥ 0.6"); Met tells
	// whether a value meets it.
	Goal string
	Met  func(v float64) bool
	// Context names further metrics shown beside the figure (their
	// medians), such as the baseline the ratio divides by.
	Context []string
}

// metric returns a Figure that reads one metric.
func metric(unit string) func(map[string]float64) (float64, bool) {
	return func(m map[string]float64) (float64, bool) {
		v, ok := m[unit]
		return v, ok
	}
}

func atLeast(goal float64) func(float64) bool { return func(v float64) bool { return v >= goal } }
func atMost(goal float64) func(float64) bool  { return func(v float64) bool { return v <= goal } }

// Rows are the table's rows in the order. A row whose benchmark
// did not run (a --quick run leaves the large sizes out) is shown as not
// run.
var Rows = []Row{
	{ID: "P1", What: "API pod creates / raw etcd puts, 16 clients, fsync on", Bench: "BenchmarkPodCreate/fsync=on/clients=16",
		Figure: metric("api/etcd-ratio"), Unit: "ratio", Goal: "≥ 0.6", Met: atLeast(0.6), Context: []string{"api-creates/s", "etcd-puts/s"}},
	{ID: "P1", What: "… fsync off", Bench: "BenchmarkPodCreate/fsync=off/clients=16",
		Figure: metric("api/etcd-ratio"), Unit: "ratio", Goal: "≥ 0.6", Met: atLeast(0.6), Context: []string{"api-creates/s", "etcd-puts/s"}},
	{ID: "P1", What: "… fsync on, protobuf storage", Bench: "BenchmarkPodCreate/fsync=on/storage=protobuf/clients=16",
		Figure: metric("api/etcd-ratio"), Unit: "ratio", Goal: "≥ 0.6", Met: atLeast(0.6), Context: []string{"api-creates/s", "etcd-puts/s"}},
	{ID: "P1", What: "… fsync off, protobuf storage", Bench: "BenchmarkPodCreate/fsync=off/storage=protobuf/clients=16",
		Figure: metric("api/etcd-ratio"), Unit: "ratio", Goal: "≥ 0.6", Met: atLeast(0.6), Context: []string{"api-creates/s", "etcd-puts/s"}},
	{ID: "P1", What: "… ceiling: a bare HTTPS relay to etcd / raw etcd puts, fsync on", Bench: "BenchmarkHTTPSRelay/fsync=on/clients=16",
		Figure: metric("relay/etcd-ratio"), Unit: "ratio", Goal: "(none: above any API server's)",
		Context: []string{"relay-creates/s", "etcd-puts/s"}},
	{ID: "P1", What: "… ceiling, fsync off", Bench: "BenchmarkHTTPSRelay/fsync=off/clients=16",
		Figure: metric("relay/etcd-ratio"), Unit: "ratio", Goal: "(none: above any API server's)",
		Context: []string{"relay-creates/s", "etcd-puts/s"}},
	{ID: "P1 peer", What: "kubesim / real kube-apiserver pod creates/s, JSON, both audit", Bench: PeerBench + "/storage=json/peer-audit=on/peer-apf=on/clients=16",
		Figure: metric("kubesim/peer-ratio"), Unit: "ratio", Goal: "≥ 2", Met: atLeast(2), Context: []string{"kubesim-creates/s", "peer-creates/s"}},
	{ID: "P1 peer", What: "… the peer without audit log (its default)", Bench: PeerBench + "/storage=json/peer-audit=off/peer-apf=on/clients=16",
		Figure: metric("kubesim/peer-ratio"), Unit: "ratio", Goal: "≥ 2", Met: atLeast(2), Context: []string{"kubesim-creates/s", "peer-creates/s"}},
	{ID: "P1 peer", What: "… the peer without APF (max-in-flight, as kubesim)", Bench: PeerBench + "/storage=json/peer-audit=on/peer-apf=off/clients=16",
		Figure: metric("kubesim/peer-ratio"), Unit: "ratio", Goal: "≥ 2", Met: atLeast(2), Context: []string{"kubesim-creates/s", "peer-creates/s"}},
	{ID: "P1 peer", What: "… protobuf storage on both", Bench: PeerBench + "/storage=protobuf/peer-audit=on/peer-apf=on/clients=16",
		Figure: metric("kubesim/peer-ratio"), Unit: "ratio", Goal: "≥ 2", Met: atLeast(2), Context: []string{"kubesim-creates/s", "peer-creates/s"}},
	{ID: "P2", What: "create → Running, 100 nodes: pods/s ÷ (etcd puts/s ÷ writes per pod)", Bench: "BenchmarkPodToRunning",
		Figure: podToRunningShare, Unit: "ratio", Goal: "≥ 0.5", Met: atLeast(0.5),
		Context: []string{"pods-running/s", "etcd-puts/s", "etcd-writes/pod", "api-requests/pod"}},
	{ID: "P2", What: "… side by side: pods Running/s ÷ raw etcd puts/s, taking turns", Bench: "BenchmarkPodToRunning",
		Figure: metric("e2e/etcd-ratio"), Unit: "ratio", Goal: "(none yet)",
		Context: []string{"pods-running/s", "etcd-puts/s", "rewatches/op"}},
	{ID: "P2", What: "… side by side: pods Running/s ÷ a bare HTTPS relay's puts/s", Bench: "BenchmarkPodToRunning",
		Figure: metric("e2e/relay-ratio"), Unit: "ratio", Goal: "(none yet)",
		Context: []string{"pods-running/s", "relay-creates/s"}},
	{ID: "P2 peer", What: "create → Running, 100 nodes: kubesim / real, pods/s", Bench: PeerE2EBench + "/peer-qps=kubesim/nodes=100",
		Figure: metric("kubesim/peer-ratio"), Unit: "ratio", Goal: "≥ 2", Met: atLeast(2),
		Context: []string{"kubesim-pods/s", "peer-pods/s", "kubesim-cpu-ms/pod", "peer-cpu-ms/pod"}},
	{ID: "P2 peer", What: "… the peer's scheduler and controller manager at upstream's client QPS", Bench: PeerE2EBench + "/peer-qps=upstream/nodes=100",
		Figure: metric("kubesim/peer-ratio"), Unit: "ratio", Goal: "≥ 2", Met: atLeast(2),
		Context: []string{"kubesim-pods/s", "peer-pods/s"}},
	{ID: "P2 peer", What: "… API requests per pod, kubesim (the peer's beside it)", Bench: PeerE2EBench + "/peer-qps=kubesim/nodes=100",
		Figure: metric("kubesim-api-requests/pod"), Unit: "requests", Goal: "(none)",
		Context: []string{"peer-api-requests/pod", "kubesim-etcd-writes/pod", "peer-etcd-writes/pod"}},
	{ID: "P3", What: "POST → Running p99 at 20 pods/s, 100 nodes", Bench: "BenchmarkPodLatency/nodes=100",
		Figure: metric("p99-ms"), Unit: "ms", Goal: "≤ 50", Met: atMost(50), Context: []string{"p50-ms", "etcd-put-p99-ms"}},
	{ID: "P3", What: "… 1,000 nodes", Bench: "BenchmarkPodLatency/nodes=1000",
		Figure: metric("p99-ms"), Unit: "ms", Goal: "≤ 100", Met: atMost(100), Context: []string{"p50-ms", "etcd-put-p99-ms"}},
	{ID: "P3 peer", What: "POST → Running p99, 20 pods/s, 100 nodes: kubesim / real", Bench: PeerLatencyBench + "/nodes=100",
		Figure: metric("kubesim/peer-p99"), Unit: "ratio", Goal: "≤ 1", Met: atMost(1),
		Context: []string{"kubesim-p99-ms", "peer-p99-ms", "kubesim-p50-ms", "peer-p50-ms"}},
	{ID: "P4", What: "1,000 pod watchers, 20 creates/s: p99 event delay", Bench: "BenchmarkWatchFanOut",
		Figure: metric("p99-1000-ms"), Unit: "ms", Goal: "≤ 10", Met: atMost(10), Context: []string{"p99-1-ms"}},
	{ID: "P4", What: "… p99(1000) / p99(1)", Bench: "BenchmarkWatchFanOut",
		Figure: metric("p99-ratio"), Unit: "ratio", Goal: "≤ 3", Met: atMost(3)},
	{ID: "P4", What: "… heap per idle watcher", Bench: "BenchmarkWatchFanOut",
		Figure: metric("heap-B/watcher"), Unit: "B", Goal: "≤ 8192", Met: atMost(8192), Context: []string{"stack-B/watcher"}},
	{ID: "P4 peer", What: "1,000 pod watchers over HTTPS: p99 event delay, kubesim / peer", Bench: PeerWatchBench,
		Figure: metric("kubesim/peer-p99-ratio"), Unit: "ratio", Goal: "(none)",
		Context: []string{"kubesim-p99-ms", "peer-p99-ms", "kubesim-p50-ms", "peer-p50-ms"}},
	{ID: "P5", What: "scheduler in memory, 1,000 nodes", Bench: "BenchmarkScheduling/nodes=1000",
		Figure: metric("pods/s"), Unit: "pods/s", Goal: "≥ 10000", Met: atLeast(10000)},
	{ID: "P5", What: "… recorder without readers / none, taking turns, 1,000 nodes", Bench: "BenchmarkScheduling/nodes=1000/recorder-without-readers",
		Figure: metric("x-no-recorder"), Unit: "ratio", Goal: "≥ 0.9", Met: atLeast(0.9), Context: []string{"pods/s"}},
	{ID: "P6", What: "serve → /readyz", Bench: "BenchmarkServeReady",
		Figure: metric("ready-ms"), Unit: "ms", Goal: "≤ 1000", Met: atMost(1000), Context: []string{"version-ms"}},
	{ID: "P6'", What: "play pod-create --plain --speed 0, wall", Bench: "BenchmarkPlayWall",
		Figure: metric("wall-ms"), Unit: "ms", Goal: "≤ 500", Met: atMost(500), Context: []string{"version-ms"}},
	{ID: "P7", What: "1,000 idle nodes, upstream's heartbeat periods (speed 1): cores", Bench: "BenchmarkIdleNodes/speed=1,nodes=1000",
		Figure: metric("cores"), Unit: "cores", Goal: "≤ 0.1", Met: atMost(0.1),
		Context: []string{"etcd-revisions/s", "lease-writes/s", "api-requests/s"}},
	{ID: "P7", What: "… at speed 0 (Leases renewed every 0.5 s, the hollow nodes' every 2 s)", Bench: "BenchmarkIdleNodes/speed=0,nodes=1000",
		Figure: metric("cores"), Unit: "cores", Goal: "(none: beside the row above)",
		Context: []string{"etcd-revisions/s", "api-requests/s"}},
	{ID: "P7", What: "… 100 idle nodes", Bench: "BenchmarkIdleNodes/speed=0",
		Figure: metric("cores"), Unit: "cores", Goal: "(none: beside the row above)",
		Context: []string{"etcd-revisions/s", "api-requests/s"}},
	{ID: "P7 peer", What: "1,000 idle nodes, upstream's periods: cores, kubesim / real", Bench: PeerIdleBench + "/nodes=1000",
		Figure: metric("kubesim/peer-cores"), Unit: "ratio", Goal: "(none)",
		Context: []string{"kubesim-cores", "peer-cores", "kubesim-etcd-revisions/s", "peer-etcd-revisions/s"}},
	{ID: "P7 peer", What: "RSS added per Running pod, 10,000 pods, 1,000 nodes: kubesim / real", Bench: PeerMemoryBench + "/pods=10000/nodes=1000",
		Figure: metric("kubesim/peer-rss-ratio"), Unit: "ratio", Goal: "≤ 1", Met: atMost(1),
		Context: []string{"kubesim-rss-KB/pod", "peer-rss-KB/pod", "kubesim-rss-MB", "peer-rss-MB"}},
	{ID: "P7 peer", What: "… whole RSS ÷ pods (above: RSS added ÷ pods)", Bench: PeerMemoryBench + "/pods=10000/nodes=1000",
		Figure: metric("kubesim/peer-total-ratio"), Unit: "ratio", Goal: "≤ 1", Met: atMost(1),
		Context: []string{"kubesim-total-KB/pod", "peer-total-KB/pod", "kubesim-peak-MB", "peer-peak-MB"}},
	{ID: "P7 peer", What: "… RSS added per pod, 2,000 pods on 100 nodes", Bench: PeerMemoryBench + "/pods=2000/nodes=100",
		Figure: metric("kubesim/peer-rss-ratio"), Unit: "ratio", Goal: "≤ 1", Met: atMost(1),
		Context: []string{"kubesim-rss-KB/pod", "peer-rss-KB/pod", "kubesim-total-KB/pod", "peer-total-KB/pod"}},
	{ID: "P7'", What: "memory per Running pod, 10,000 pods on 1,000 nodes", Bench: "BenchmarkPodMemory/pods=10000/nodes=1000",
		Figure: metric("heap-KB/pod"), Unit: "KB", Goal: "≤ 40", Met: atMost(40), Context: []string{"rss-KB/pod", "stored-B/pod"}},
	{ID: "P7'", What: "… 2,000 pods on 100 nodes", Bench: "BenchmarkPodMemory/pods=2000/nodes=100",
		Figure: metric("heap-KB/pod"), Unit: "KB", Goal: "≤ 40", Met: atMost(40), Context: []string{"rss-KB/pod", "stored-B/pod"}},
}

// podToRunningShare is P2's first figure: the pods a second that reached
// Running over what raw etcd puts allow for a pod's writes, that is
// pods/s × writes per pod ÷ puts/s. It grows when a pod writes more (the
// rows after it do not: they divide the pods' rate by a baseline's
// alone); it is kept so that the table reads as before.
func podToRunningShare(m map[string]float64) (float64, bool) {
	pods, ok1 := m["pods-running/s"]
	puts, ok2 := m["etcd-puts/s"]
	writes, ok3 := m["etcd-writes/pod"]
	if !ok1 || !ok2 || !ok3 || puts == 0 {
		return 0, false
	}
	return pods * writes / puts, true
}

// benchOf returns the top-level benchmark of a full name
// ("BenchmarkPodCreate" of "BenchmarkPodCreate/fsync=on/clients=16").
func benchOf(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}
