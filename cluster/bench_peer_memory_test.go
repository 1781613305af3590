package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kubesim/kubesim/internal/benchtable"
)

// memorySideEnv, set to "kubesim" in the environment of a child test
// process, makes BenchmarkPodMemoryVsPeer run kubesim's side alone (see
// kubesimMemorySide); the benchmark sets it when it re-executes itself.
const memorySideEnv = "KUBESIM_PEER_MEMORY_SIDE"

// memoryRunningTimeout bounds how long either side may take to get its
// pods Running (a starved machine is slow; the peer's 10,000 take
// minutes).
const memoryRunningTimeout = 30 * time.Minute

// BenchmarkPodMemoryVsPeer is P7 beside the real control plane: the
// resident memory (RSS, from /proc/<pid>/status) a Running pod costs in
// kubesim's whole process and in the peer's four processes summed
// (kube-apiserver, etcd, kube-scheduler, kube-controller-manager), at
// each size one run (-benchtime 1x). The sides run one after the other,
// kubesim first:
//
//   - kubesim in a child process (this test binary run again with
//     memorySideEnv; see kubesimMemorySide), so that nothing else lives
//     in the process it measures: a cluster at speed 0, fsync on, JSON
//     storage and its audit log, upstream's Lease and grace periods (40 s,
//     50 s), on kubesim's nodes, that is cluster.RealKubelets (100)
//     upstream-like kubelets, each with its own pod watch, and the rest
//     hollow nodes sharing one watch; the load's 16 clients and the watch
//     that counts pods Running (keeping a summary of each pod) are in that
//     process too, started before the first measurement;
//   - the peer in processes of its own: kube-apiserver v1.37.2 (JSON
//     storage, the same audit log, APF on) on etcd v3.7.3 (fsync on),
//     kube-scheduler and kube-controller-manager at kubesim's client rate
//     limit, and as many of kubesim's kubelets pointed at its API,
//     started as kubesim's cluster starts its own (startPeerKubelets:
//     100 upstream-like, the rest hollow); those kubelets, the clients
//     and the watch run in this process, outside the peer's sum.
//
// Each side starts, waits until its nodes are Ready, settles, creates the
// pods (benchPod, 16 clients), waits until its watch has seen every one
// Running, settles again and is measured before and after. kubesim
// also collects until its live heap holds, as BenchmarkPodMemory does
// (for its heap figure); then each side waits until its RSS (the peer's
// summed) holds within 1% for 10 s, at most 5 minutes (settledRSS): the
// peer's processes are not this one's to collect. It reports (each
// side's figure, then kubesim's over the peer's):
//
//	<side>-rss-KB/pod        RSS added per pod: (after − before) ÷ pods
//	kubesim/peer-rss-ratio   the first row's figure; issue 33's goal ≤ 1
//	<side>-total-KB/pod      whole RSS after ÷ pods (the other reading
//	kubesim/peer-total-ratio of "per Running pod, whole process")
//	<side>-rss-MB            RSS after (the peer's share of each process
//	                         is logged)
//	<side>-peak-MB           VmHWM: kubesim's process's peak; the peer's
//	                         processes' peaks summed (an upper bound)
//	kubesim-heap-KB/pod      kubesim's live heap added per pod
//
// The peer is found by findPeer and needs ../shared/peer/build --all.
func BenchmarkPodMemoryVsPeer(b *testing.B) {
	for _, size := range []struct{ pods, nodes int }{{2000, 100}, {10000, 1000}} {
		b.Run(fmt.Sprintf("pods=%d/nodes=%d", size.pods, size.nodes), func(b *testing.B) {
			if b.N != 1 {
				b.Skip("one run per size: -benchtime 1x")
			}
			if os.Getenv(memorySideEnv) == "kubesim" {
				kubesimMemorySide(b, size.pods, size.nodes)
				return
			}
			inst := findPeer(b)
			k := runKubesimMemoryChild(b, size.pods, size.nodes)
			p := peerMemorySide(b, inst, size.pods, size.nodes)
			b.StopTimer()
			reportPodMemory(b, k, p, size.pods)
		})
	}
}

// memoryFigures is one side's memory: RSS before the pods and after them
// (settled), the peak (VmHWM) and, for kubesim, the live heap per pod.
type memoryFigures struct {
	rss0, rss1, peak uint64
	heapPerPod       float64 // bytes; kubesim only
}

// kubesimMemorySide is kubesim's side of BenchmarkPodMemoryVsPeer, run
// in a child process: it reports rss0-MB, rss-MB, peak-MB and
// heap-KB/pod for the parent to read, and writes the live heap with
// every pod Running where KUBESIM_BENCH_HEAP_PROFILE says (see
// writeHeapProfile; the child inherits the environment).
func kubesimMemorySide(b *testing.B, pods, nodes int) {
	c, _, _ := startBenchCluster(b, nodes, configureLikeThePeer)
	clients := newBenchClients(b, c.Kubeconfig, 16)
	watch := watchPodsRunning(b, clients[0], metav1.NamespaceDefault, nil)
	self := []int{os.Getpid()}
	heap0, _ := settledMemory(b)
	rss0 := settledRSS(b, "kubesim", self)[0].rss
	createMemoryPods(b, "kubesim", clients, watch, pods)
	heap1, _ := settledMemory(b)
	after := settledRSS(b, "kubesim", self)[0]
	rss1, peak := after.rss, after.peak
	writeHeapProfile(b)
	b.StopTimer()
	mb := func(v uint64) float64 { return float64(v) / (1 << 20) }
	b.ReportMetric(mb(rss0), "rss0-MB")
	b.ReportMetric(mb(rss1), "rss-MB")
	b.ReportMetric(mb(peak), "peak-MB")
	b.ReportMetric((float64(heap1)-float64(heap0))/float64(pods)/1024, "heap-KB/pod")
}

// runKubesimMemoryChild runs kubesimMemorySide for the size in a child
// process (this test binary again) and returns its figures.
func runKubesimMemoryChild(b *testing.B, pods, nodes int) memoryFigures {
	name := fmt.Sprintf("BenchmarkPodMemoryVsPeer/pods=%d/nodes=%d", pods, nodes)
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.benchtime=1x", "-test.timeout=45m",
		fmt.Sprintf("-test.bench=^BenchmarkPodMemoryVsPeer$/^pods=%d$/^nodes=%d$", pods, nodes))
	cmd.Env = append(os.Environ(), memorySideEnv+"=kubesim")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	results, perr := benchtable.Parse(bytes.NewReader(stdout.Bytes()))
	for _, r := range results {
		m := r.Metrics
		if r.Name != name || err != nil || perr != nil {
			continue
		}
		mib := func(unit string) uint64 { return uint64(m[unit] * (1 << 20)) }
		logChildLines(b, stdout.String())
		return memoryFigures{rss0: mib("rss0-MB"), rss1: mib("rss-MB"), peak: mib("peak-MB"), heapPerPod: m["heap-KB/pod"] * 1024}
	}
	b.Fatalf("kubesim's side (a child process) gave no result: %v %v\n--- stdout:\n%s\n--- stderr:\n%s",
		err, perr, lastLines(stdout.String(), 30), lastLines(stderr.String(), 30))
	return memoryFigures{}
}

// logChildLines logs the child's benchmark log lines (indented
// "file.go:line: …" lines of its output).
func logChildLines(b *testing.B, out string) {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "    ") && strings.Contains(line, ".go:") {
			b.Logf("child: %s", strings.TrimSpace(line))
		}
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// peerMemorySide is the peer's side of BenchmarkPodMemoryVsPeer: it
// starts the peer's control plane and kubelets, and measures the summed
// RSS of its four processes before and after the pods (logging each
// process's share).
func peerMemorySide(b *testing.B, inst peerInstall, pods, nodes int) memoryFigures {
	run, _ := startPeerCluster(b, inst, nodes, peerQPSKubesim)
	clients := newBenchClients(b, run.kubeconfig, 16)
	waitNodesReadyWithin(b, clients[0], nodes, 10*time.Minute)
	watch := watchPodsRunning(b, clients[0], metav1.NamespaceDefault, nil)
	before := settledRSS(b, "the peer", run.pids)
	logPeerMemory(b, "before the pods", run.pids, before)
	createMemoryPods(b, "peer", clients, watch, pods)
	after := settledRSS(b, "the peer", run.pids)
	logPeerMemory(b, fmt.Sprintf("%d pods Running", pods), run.pids, after)
	f := memoryFigures{}
	for i := range run.pids {
		f.rss0 += before[i].rss
		f.rss1 += after[i].rss
		f.peak += after[i].peak
	}
	return f
}

// routeKlogTo sends klog's lines (the kubelets' and client-go's in this
// process, which no cluster here routes) to the file path until b ends,
// then restores klog's configuration. Call it before starting what logs,
// so that it is restored after they stop.
func routeKlogTo(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	state := klog.CaptureState()
	klog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(f, nil)))
	b.Cleanup(func() {
		state.Restore()
		f.Close()
	})
}

// createMemoryPods creates pods pods named mem-… (benchPod) from the
// clients and waits until watch has seen every one Running.
func createMemoryPods(b *testing.B, side string, clients []kubernetes.Interface, watch *podsRunning, pods int) {
	ctx, cancel := context.WithTimeout(context.Background(), memoryRunningTimeout)
	defer cancel()
	start := time.Now()
	var seq atomic.Int64
	if _, err := runConcurrent(pods, len(clients), func(client int) error {
		name := fmt.Sprintf("mem-%09d", seq.Add(1))
		_, err := clients[client].CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, benchPod(name), metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatalf("%s: %v", side, err)
	}
	if err := watch.waitFor(ctx, pods); err != nil {
		b.Fatalf("%s: pods Running: %v", side, err)
	}
	b.Logf("%s: %d pods Running in %v (%d re-watches, %d re-lists)", side, pods,
		time.Since(start).Round(time.Millisecond), watch.rewatches(), watch.relists())
}

// reportPodMemory reports both sides' figures (see
// BenchmarkPodMemoryVsPeer).
func reportPodMemory(b *testing.B, k, p memoryFigures, pods int) {
	kb := func(v float64) float64 { return v / 1024 / float64(pods) }
	mb := func(v uint64) float64 { return float64(v) / (1 << 20) }
	kAdded, pAdded := kb(float64(k.rss1)-float64(k.rss0)), kb(float64(p.rss1)-float64(p.rss0))
	kTotal, pTotal := kb(float64(k.rss1)), kb(float64(p.rss1))
	b.ReportMetric(kAdded, "kubesim-rss-KB/pod")
	b.ReportMetric(pAdded, "peer-rss-KB/pod")
	b.ReportMetric(kAdded/pAdded, "kubesim/peer-rss-ratio")
	b.ReportMetric(kTotal, "kubesim-total-KB/pod")
	b.ReportMetric(pTotal, "peer-total-KB/pod")
	b.ReportMetric(kTotal/pTotal, "kubesim/peer-total-ratio")
	b.ReportMetric(mb(k.rss1), "kubesim-rss-MB")
	b.ReportMetric(mb(p.rss1), "peer-rss-MB")
	b.ReportMetric(mb(k.peak), "kubesim-peak-MB")
	b.ReportMetric(mb(p.peak), "peer-peak-MB")
	b.ReportMetric(k.heapPerPod/1024, "kubesim-heap-KB/pod")
	b.Logf("kubesim: RSS %.0f MB before the pods, %.0f MB after, peak %.0f MB",
		mb(k.rss0), mb(k.rss1), mb(k.peak))
}

// procMem is one process's resident memory now (VmRSS) and its peak
// (VmHWM), in bytes.
type procMem struct{ rss, peak uint64 }

// procMemory reads VmRSS and VmHWM from /proc/<pid>/status.
func procMemory(b *testing.B, pid int) (rss, peak uint64) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatalf("memory of pid %d: %v", pid, err)
	}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		key, rest, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			b.Fatalf("pid %d: %s: %v", pid, line, err)
		}
		if key == "VmRSS" {
			rss = kb * 1024
		} else {
			peak = kb * 1024
		}
		found++
	}
	if found != 2 {
		b.Fatalf("pid %d: no VmRSS and VmHWM in its status", pid)
	}
	return rss, peak
}

// pidsMemory is each process's memory now.
func pidsMemory(b *testing.B, pids []int) []procMem {
	out := make([]procMem, len(pids))
	for i, pid := range pids {
		out[i].rss, out[i].peak = procMemory(b, pid)
	}
	return out
}

// settledRSS samples the processes' memory every 2 s until their summed
// RSS has stayed within 1% for the last 10 s (six samples), at most 5
// minutes (then it logs that side's did not settle), and returns the
// last sample. Both sides settle by it, so that each is read when its
// runtime has returned what it returns to the OS at its own pace.
func settledRSS(b *testing.B, side string, pids []int) []procMem {
	const window = 6
	var sums []uint64
	var last []procMem
	for deadline := time.Now().Add(5 * time.Minute); ; {
		last = pidsMemory(b, pids)
		var sum uint64
		for _, m := range last {
			sum += m.rss
		}
		sums = append(sums, sum)
		if n := len(sums); n >= window {
			lo, hi := slices.Min(sums[n-window:]), slices.Max(sums[n-window:])
			if hi-lo <= lo/100 {
				return last
			}
		}
		if time.Now().After(deadline) {
			b.Logf("%s: RSS did not settle within 5 minutes: the last %d samples (MB) %v", side, window, mbs(sums[len(sums)-window:]))
			return last
		}
		time.Sleep(2 * time.Second) // the next sample: there is no event to wait for
	}
}

func mbs(v []uint64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = x >> 20
	}
	return out
}

// logPeerMemory logs each of the peer's processes' RSS and peak (their
// names from /proc/<pid>/cmdline).
func logPeerMemory(b *testing.B, when string, pids []int, mem []procMem) {
	var sb strings.Builder
	var sum uint64
	for i, pid := range pids {
		name := strconv.Itoa(pid)
		if cmdline, err := os.ReadFile("/proc/" + name + "/cmdline"); err == nil {
			argv0, _, _ := bytes.Cut(cmdline, []byte{0})
			name = filepath.Base(string(argv0))
		}
		fmt.Fprintf(&sb, " %s %d MB (peak %d);", name, mem[i].rss>>20, mem[i].peak>>20)
		sum += mem[i].rss
	}
	b.Logf("peer, %s: RSS %d MB:%s", when, sum>>20, strings.TrimSuffix(sb.String(), ";"))
}
