package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// BenchmarkServeReady measures kubesim serve as a user starts it: from
// the exec of the process to the line it prints once the cluster has
// started (cluster.Start returns after /readyz answers ok; a GET /readyz
// right after checks it), on a new data dir each time, the default 3
// nodes, speed 0. Beside it, in the same run, the wall time of kubesim
// version: what starting this binary costs at all. It reports ready-ms
// and version-ms (medians of b.N starts).
//
//	go test . -run '^$' -bench ServeReady -benchtime 5x
func BenchmarkServeReady(b *testing.B) {
	bin := kubesimBinary(b)
	var ready []time.Duration
	for range b.N {
		dir := b.TempDir()
		start := time.Now()
		p := startKubesim(b, nil, "serve", "--port", "0", "--speed", "0", "--data-dir", dir)
		p.waitLine(readyLine, time.Minute)
		ready = append(ready, time.Since(start))
		checkReadyz(b, filepath.Join(dir, "kubeconfig"))
		p.signal(syscall.SIGINT)
		p.wait(time.Minute)
	}
	b.ReportMetric(medianMs(ready), "ready-ms")
	b.ReportMetric(medianMs(timeRuns(b, b.N, bin, "version")), "version-ms")
}

// BenchmarkPlayWall measures kubesim play pod-create --plain --speed 0 as
// a whole process, exec to exit, beside kubesim version's wall time; it
// reports wall-ms and version-ms (medians of b.N runs).
//
//	go test . -run '^$' -bench PlayWall -benchtime 5x
func BenchmarkPlayWall(b *testing.B) {
	bin := kubesimBinary(b)
	b.ReportMetric(medianMs(timeRuns(b, b.N, bin, "play", "pod-create", "--plain", "--speed", "0")), "wall-ms")
	b.ReportMetric(medianMs(timeRuns(b, b.N, bin, "version")), "version-ms")
}

// timeRuns runs bin with args n times, each to its exit, and returns
// their wall times.
func timeRuns(b *testing.B, n int, bin string, args ...string) []time.Duration {
	var ds []time.Duration
	for range n {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cmd.Environ(), "TMPDIR="+b.TempDir())
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", bin, args, err, out)
		}
		ds = append(ds, time.Since(start))
	}
	return ds
}

// checkReadyz fails the benchmark unless GET /readyz answers ok.
func checkReadyz(b *testing.B, kubeconfig string) {
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil || string(body) != "ok" {
		b.Fatalf("GET /readyz right after the ready line: %q, %v", body, err)
	}
}

// medianMs is the median of ds in milliseconds.
func medianMs(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
