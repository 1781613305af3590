package benchtable

import "strconv"

// Run is one go test invocation of the table's benchmarks.
type Run struct {
	// Package is the package path relative to the module ("./cluster").
	Package string
	// Pattern is go test's -bench pattern.
	Pattern string
	// Benchtime is -benchtime for the full table, Quick for --quick.
	Benchtime, Quick string
	// QuickPattern, if set, replaces Pattern with --quick (leaving the
	// large sizes out).
	QuickPattern string
	// Peer says the run needs the peer (the real kube-apiserver and etcd
	// that ../shared/peer builds and starts); without it the run is left
	// out and its rows are marked skipped (MarkSkipped).
	Peer bool
}

// PeerBench, PeerWatchBench, PeerE2EBench, PeerLatencyBench,
// PeerMemoryBench and PeerIdleBench are the benchmarks that run the same
// load against kubesim and the peer in one run (cluster's
// BenchmarkPodCreateVsPeer, BenchmarkWatchFanOutVsPeer,
// BenchmarkPodToRunningVsPeer, BenchmarkPodLatencyVsPeer,
// BenchmarkPodMemoryVsPeer, BenchmarkIdleNodesVsPeer); PeerBenches lists
// them.
const (
	PeerBench        = "BenchmarkPodCreateVsPeer"
	PeerWatchBench   = "BenchmarkWatchFanOutVsPeer"
	PeerE2EBench     = "BenchmarkPodToRunningVsPeer"
	PeerLatencyBench = "BenchmarkPodLatencyVsPeer"
	PeerMemoryBench  = "BenchmarkPodMemoryVsPeer"
	PeerIdleBench    = "BenchmarkIdleNodesVsPeer"
)

var PeerBenches = []string{PeerBench, PeerWatchBench, PeerE2EBench, PeerLatencyBench, PeerMemoryBench, PeerIdleBench}

// PeerNotBuilt is the reason the peer's rows are skipped when its
// binaries are missing.
const PeerNotBuilt = "peer not built (../shared/peer/build --all)"

// Plan are the runs that fill Rows, in the order they run (the cheap
// ones first).
var Plan = []Run{
	{Package: "./scheduler", Pattern: "^BenchmarkScheduling$/^nodes=1000", Benchtime: "20000x", Quick: "5000x"},
	{Package: ".", Pattern: "^Benchmark(ServeReady|PlayWall)$", Benchtime: "5x", Quick: "2x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodCreate$/^fsync=(on|off)$/^clients=16$", Benchtime: "4000x", Quick: "1000x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodCreate$/^fsync=(on|off)$/^storage=protobuf$/^clients=16$", Benchtime: "4000x", Quick: "1000x"},
	{Package: "./cluster", Pattern: "^BenchmarkHTTPSRelay$", Benchtime: "4000x", Quick: "1000x"},
	{Package: "./cluster", Pattern: "^" + PeerBench + "$", Benchtime: "1x", Quick: "1x", Peer: true},
	{Package: "./cluster", Pattern: "^BenchmarkPodToRunning$", Benchtime: "2000x", Quick: "300x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodLatency$", QuickPattern: "^BenchmarkPodLatency$/^nodes=100$", Benchtime: "200x", Quick: "100x"},
	{Package: "./cluster", Pattern: "^" + PeerE2EBench + "$", Benchtime: "2000x", Quick: "400x", Peer: true},
	{Package: "./cluster", Pattern: "^" + PeerLatencyBench + "$", Benchtime: "600x", Quick: "200x", Peer: true},
	{Package: "./apiserver", Pattern: "^BenchmarkWatchFanOut$", Benchtime: "1x", Quick: "1x"},
	{Package: "./cluster", Pattern: "^" + PeerWatchBench + "$", Benchtime: "1x", Quick: "1x", Peer: true},
	{Package: "./cluster", Pattern: "^BenchmarkIdleNodes$/^speed=(0|[01],nodes=1000)$", QuickPattern: "^BenchmarkIdleNodes$/^speed=0$", Benchtime: "1x", Quick: "1x"},
	{Package: "./cluster", Pattern: "^" + PeerIdleBench + "$", Benchtime: "1x", Quick: "1x", Peer: true},
	{Package: "./cluster", Pattern: "^BenchmarkPodMemory$", QuickPattern: "^BenchmarkPodMemory$/^pods=2000/", Benchtime: "1x", Quick: "1x"},
	{Package: "./cluster", Pattern: "^" + PeerMemoryBench + "$", QuickPattern: "^" + PeerMemoryBench + "$/^pods=2000/", Benchtime: "1x", Quick: "1x", Peer: true},
}

// Args are go test's arguments for r, run count times.
func (r Run) Args(quick bool, count int) []string {
	pattern, benchtime := r.Pattern, r.Benchtime
	if quick {
		benchtime = r.Quick
		if r.QuickPattern != "" {
			pattern = r.QuickPattern
		}
	}
	return []string{"test", r.Package, "-run", "^$", "-bench", pattern, "-benchtime", benchtime,
		"-count", strconv.Itoa(count), "-timeout", "60m"}
}
