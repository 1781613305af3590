package cluster_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// BenchmarkPodMemory measures what a Running pod costs in memory in the
// whole process: the pods' objects in etcd (its in-memory index and raft
// log), in the watch cache, in every informer that holds pods (the
// scheduler's, the controllers', the kubelets'), and in the flow
// evidence. It starts the cluster (speed 0, fsync off), lets it settle,
// creates the pods from 16 clients, waits until a watch has seen every
// one Running, and compares the memory after with the memory before. Each
// size is one run (-benchtime 1x). It reports:
//
//	heap-KB/pod      live heap (after a collection) added per pod
//	rss-KB/pod       resident memory of the process added per pod
//	stored-B/pod     bytes etcd holds for one pod (its value)
//	heap/stored      heap per pod over its stored bytes: how many copies
//	                 of a pod, in effect, the process keeps
//	rss-MB           the process's resident memory at the end
//
// The goal, 100,000 pods on 10,000 nodes in 4 GiB, is about
// 40 KB per pod:
//
//	go test ./cluster -run '^$' -bench PodMemory -benchtime 1x
func BenchmarkPodMemory(b *testing.B) {
	for _, size := range []struct{ pods, nodes int }{{2000, 100}, {10000, 1000}} {
		b.Run(fmt.Sprintf("pods=%d/nodes=%d", size.pods, size.nodes), func(b *testing.B) {
			benchPodMemory(b, size.pods, size.nodes)
		})
	}
}

func benchPodMemory(b *testing.B, pods, nodes int) {
	if b.N != 1 {
		b.Skip("one run per size: -benchtime 1x")
	}
	c, admin, _ := startBenchCluster(b, nodes, nil)
	heap0, rss0 := settledMemory(b)
	createPodsUntilRunning(b, c.Kubeconfig, admin, pods)
	heap1, rss1 := settledMemory(b)
	writeHeapProfile(b)
	stored := len(storedPodValue(b, c, "mem"))
	b.StopTimer()
	heapPerPod := float64(heap1-heap0) / float64(pods)
	b.ReportMetric(heapPerPod/1024, "heap-KB/pod")
	b.ReportMetric(float64(rss1-rss0)/float64(pods)/1024, "rss-KB/pod")
	b.ReportMetric(float64(stored), "stored-B/pod")
	b.ReportMetric(heapPerPod/float64(stored), "heap/stored")
	b.ReportMetric(float64(rss1)/(1<<20), "rss-MB")
}

// createPodsUntilRunning creates n pods named mem-… from 16 clients and
// waits until an informer (which watches again when the API server drops
// a watch that falls behind) has seen each of them Running.
func createPodsUntilRunning(b *testing.B, kubeconfig string, admin kubernetes.Interface, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var running sync.Map
	var count atomic.Int64
	allRunning := make(chan struct{})
	seen := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Status.Phase != corev1.PodRunning {
			return
		}
		if _, dup := running.LoadOrStore(p.Name, true); !dup && count.Add(1) == int64(n) {
			close(allRunning)
		}
	}
	defer informPods(b, admin, "", seen)()
	clients := newBenchClients(b, kubeconfig, 16)
	var seq atomic.Int64
	if _, err := runConcurrent(n, len(clients), func(client int) error {
		_, err := clients[client].CoreV1().Pods("default").Create(ctx,
			benchPod(fmt.Sprintf("mem-%09d", seq.Add(1))), metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-allRunning:
	case <-ctx.Done():
		b.Fatalf("only %d of %d pods Running", count.Load(), n)
	}
}

// writeHeapProfile writes the live heap, with every pod Running, to the
// file KUBESIM_BENCH_HEAP_PROFILE names, if it is set (go test's
// -memprofile is written after the cluster has stopped):
//
//	KUBESIM_BENCH_HEAP_PROFILE=/tmp/heap.prof go test ./cluster -run '^$' -bench PodMemory -benchtime 1x
//	go tool pprof -sample_index=inuse_space -top /tmp/heap.prof
func writeHeapProfile(b *testing.B) {
	path := os.Getenv("KUBESIM_BENCH_HEAP_PROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// settledMemory waits until the process's live heap stops changing by
// more than 1% between collections a second apart (at most 30 s), then
// returns it with the resident memory.
func settledMemory(b *testing.B) (heap, rss uint64) {
	last := uint64(0)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		if last != 0 && heap < last+last/100 && heap+heap/100 > last {
			break
		}
		last = heap
		time.Sleep(time.Second) // the next sample: there is no event to wait for
	}
	return heap, residentBytes(b)
}

// residentBytes is the process's VmRSS (procMemory).
func residentBytes(b *testing.B) uint64 {
	rss, _ := procMemory(b, os.Getpid())
	return rss
}
