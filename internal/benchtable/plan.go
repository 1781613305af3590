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
}

// Plan are the runs that fill Rows, in the order they run (the cheap
// ones first).
var Plan = []Run{
	{Package: "./scheduler", Pattern: "^BenchmarkScheduling$/^nodes=1000", Benchtime: "20000x", Quick: "5000x"},
	{Package: ".", Pattern: "^Benchmark(ServeReady|PlayWall)$", Benchtime: "5x", Quick: "2x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodCreate$/^fsync=(on|off)$/^clients=16$", Benchtime: "4000x", Quick: "1000x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodCreate$/^fsync=(on|off)$/^storage=protobuf$/^clients=16$", Benchtime: "4000x", Quick: "1000x"},
	{Package: "./cluster", Pattern: "^BenchmarkHTTPSRelay$", Benchtime: "4000x", Quick: "1000x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodToRunning$", Benchtime: "2000x", Quick: "300x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodLatency$", QuickPattern: "^BenchmarkPodLatency$/^nodes=100$", Benchtime: "200x", Quick: "100x"},
	{Package: "./apiserver", Pattern: "^BenchmarkWatchFanOut$", Benchtime: "1x", Quick: "1x"},
	{Package: "./cluster", Pattern: "^BenchmarkIdleNodes$/^speed=(0|[01],nodes=1000)$", QuickPattern: "^BenchmarkIdleNodes$/^speed=0$", Benchtime: "1x", Quick: "1x"},
	{Package: "./cluster", Pattern: "^BenchmarkPodMemory$", QuickPattern: "^BenchmarkPodMemory$/^pods=2000/", Benchtime: "1x", Quick: "1x"},
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
